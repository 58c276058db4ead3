import type { EmailDomains } from '@atrium/contracts/users';
import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import { fieldError } from '../../lib/errors.ts';

// The `domains` table belongs to the domains area (organization_id, name, state
// 'pending' | 'verified'); it is read here with plain SQL so this area does not depend on its types.

/**
 * The domains the add-user form offers (PRODUCT.md §4.6): the organisation's verified domains.
 * With ALLOW_UNVERIFIED_DOMAINS (evaluation installs) it offers every domain the organisation
 * has added and may type any other (`anyDomain`), except one another organisation has verified:
 * that domain's addresses belong to them.
 */
export async function emailDomainsFor(
  db: DbOrTrx,
  organizationId: string,
  allowUnverified: boolean,
): Promise<EmailDomains> {
  const { rows } = await sql<{ name: string; state: string }>`
    select name, state from domains where organization_id = ${organizationId} order by name`.execute(db);
  const domains = rows.filter((d) => allowUnverified || d.state === 'verified').map((d) => d.name);
  return { domains, anyDomain: allowUnverified };
}

/** Refuses a domain the organisation may not create addresses on. */
export async function assertEmailDomainAllowed(
  db: DbOrTrx,
  organizationId: string,
  domain: string,
  allowUnverified: boolean,
): Promise<void> {
  const allowed = await emailDomainsFor(db, organizationId, allowUnverified);
  if (allowed.domains.includes(domain)) return;
  if (allowed.anyDomain) {
    const { rows } = await sql<{ one: number }>`
      select 1 as one from domains
      where name = ${domain} and state = 'verified' and organization_id <> ${organizationId}
      limit 1`.execute(db);
    if (rows.length === 0) return;
    throw fieldError('domain', 'This domain cannot be used here. Add a domain on the Domains page.');
  }
  throw fieldError(
    'domain',
    allowed.domains.length === 0
      ? 'Your organisation has no verified domain yet. Add and verify one on the Domains page first.'
      : 'Choose one of your organisation’s verified domains',
  );
}
