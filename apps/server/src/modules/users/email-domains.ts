import type { EmailDomains } from '@atrium/contracts/users';
import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import { fieldError } from '../../lib/errors.ts';

// The `domains` table belongs to the domains area (organization_id, name, state
// 'pending' | 'verified'); it is read here with plain SQL so this area does not depend on its types.

/**
 * The domains the add-user form offers: the organisation's verified domains.
 * With ALLOW_UNVERIFIED_DOMAINS (evaluation installs) it offers every domain the organisation
 * has added and may type any other (`anyDomain`), except one another organisation has verified:
 * that domain's addresses belong to them.
 */
export async function emailDomainsFor(
  db: DbOrTrx,
  organizationId: string,
  allowUnverified: boolean,
  mailHere = false,
): Promise<EmailDomains> {
  const { rows } = await sql<{ name: string; state: string }>`
    select name, state from domains where organization_id = ${organizationId} order by name`.execute(db);
  const domains = rows.filter((d) => allowUnverified || d.state === 'verified').map((d) => d.name);
  // Postfix takes mail for verified domains (docs/mail.md): theirs is hosted here when it asks Atrium.
  const mailHosted = mailHere ? rows.filter((d) => d.state === 'verified').map((d) => d.name) : [];
  return { domains, anyDomain: allowUnverified, mailHosted };
}

export type EmailDomainProblem = 'verified-elsewhere' | 'no-verified-domain' | 'not-verified';

/**
 * Why the organisation may not create addresses on `domain`, or null when it may: the one rule
 * for the add-user form and the CSV import (each words it for its reader). `verifiedElsewhere`:
 * another organisation verified the domain or one above it (`domainsVerifiedElsewhere`); it
 * matters with `anyDomain`, where even a domain this organisation added but has not verified is
 * refused once another organisation owns it.
 */
export function emailDomainProblem(
  allowed: EmailDomains,
  domain: string,
  verifiedElsewhere: boolean,
): EmailDomainProblem | null {
  if (allowed.anyDomain) return verifiedElsewhere ? 'verified-elsewhere' : null;
  if (allowed.domains.includes(domain)) return null;
  return allowed.domains.length === 0 ? 'no-verified-domain' : 'not-verified';
}

const FORM_MESSAGES: Record<EmailDomainProblem, string> = {
  'verified-elsewhere': 'This domain cannot be used here. Add a domain on the Domains page.',
  'no-verified-domain':
    'Your organisation has no verified domain yet. Add and verify one on the Domains page first.',
  'not-verified': 'Choose one of your organisation’s verified domains',
};

/**
 * Which of `domains` belong to another organisation: it verified the domain, or a domain above it
 * (`sub.acme.test` under a verified `acme.test`). A domain this organisation verified itself is
 * its own.
 */
export async function domainsVerifiedElsewhere(
  db: DbOrTrx,
  organizationId: string,
  domains: string[],
): Promise<Set<string>> {
  if (domains.length === 0) return new Set();
  const candidates = [...new Set(domains.flatMap((d) => [d, ...parentNames(d)]))];
  const { rows } = await sql<{ name: string; own: boolean }>`
    select distinct name, organization_id = ${organizationId} as own from domains
    where name in (${sql.join(candidates)}) and state = 'verified'`.execute(db);
  const ownVerified = new Set(rows.filter((r) => r.own).map((r) => r.name));
  const elsewhere = new Set(rows.filter((r) => !r.own).map((r) => r.name));
  return new Set(
    domains.filter((d) => !ownVerified.has(d) && [d, ...parentNames(d)].some((n) => elsewhere.has(n))),
  );
}

/** `a.b.example.com` → `b.example.com`, `example.com` (the names above it with two labels or more). */
function parentNames(domain: string): string[] {
  const labels = domain.split('.');
  return labels.slice(1, -1).map((_, i) => labels.slice(i + 1).join('.'));
}

/** Refuses a domain the organisation may not create addresses on. */
export async function assertEmailDomainAllowed(
  db: DbOrTrx,
  organizationId: string,
  domain: string,
  allowUnverified: boolean,
): Promise<void> {
  const allowed = await emailDomainsFor(db, organizationId, allowUnverified);
  const elsewhere = allowed.anyDomain
    ? (await domainsVerifiedElsewhere(db, organizationId, [domain])).has(domain)
    : false;
  const problem = emailDomainProblem(allowed, domain, elsewhere);
  if (problem) throw fieldError('domain', FORM_MESSAGES[problem]);
}
