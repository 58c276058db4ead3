import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

// The lookups Postfix and Dovecot make for every message and sign-in: each is one query on a
// unique index (domains_verified_name_unique, users.email), so a miss costs as little as a hit.
// These are deployment-wide by nature (an address or domain names its organisation).

/** Whether `name` is a verified domain of some organisation (Postfix's virtual_mailbox_domains). */
export async function isMailDomain(db: Db, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('domains')
    .select(sql<number>`1`.as('found'))
    .where('name', '=', name)
    // A literal, not a parameter, so the planner can always use the partial index.
    .where('state', '=', sql.lit('verified'))
    .executeTakeFirst();
  return row !== undefined;
}

export interface Mailbox {
  userId: string;
  organizationId: string;
  email: string;
  status: 'active' | 'suspended';
  planKey: string;
}

/**
 * The mailbox behind an address: a user's primary address, active or suspended (mail for a
 * suspended user is still accepted and kept). Invited users have no mailbox yet; deleted users
 * are gone from the table.
 */
export async function mailboxOf(db: Db, address: string): Promise<Mailbox | undefined> {
  const row = await db
    .selectFrom('users')
    .innerJoin('subscriptions', 'subscriptions.organization_id', 'users.organization_id')
    .select(['users.id', 'users.organization_id', 'users.email', 'users.status', 'subscriptions.plan_key'])
    .where('users.email', '=', address)
    .where('users.status', 'in', ['active', 'suspended'])
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    userId: row.id,
    organizationId: row.organization_id,
    email: row.email,
    status: row.status as Mailbox['status'],
    planKey: row.plan_key,
  };
}
