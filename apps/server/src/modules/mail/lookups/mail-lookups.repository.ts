import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';

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

/** Users who hold a mailbox: mail to them is accepted and kept (suspended and invited users' too). */
const HAS_MAILBOX: Array<'active' | 'suspended' | 'invited'> = ['active', 'suspended', 'invited'];

export interface Mailbox {
  userId: string;
  organizationId: string;
  email: string;
  status: 'active' | 'suspended' | 'invited';
  planKey: string;
}

/**
 * The mailbox behind an address: a user's primary address, active, suspended or invited (mail for
 * a suspended user is still accepted and kept; an invited user's mailbox exists from the start, so
 * mail sent before they sign in is kept, as Google Workspace does: issue 42 item 1). Nobody opens
 * an invited user's mailbox before they set a password (dovecot-userdb.ts). Deleted users are gone.
 */
export async function mailboxOf(db: Db, address: string): Promise<Mailbox | undefined> {
  const row = await db
    .selectFrom('users')
    .innerJoin('subscriptions', 'subscriptions.organization_id', 'users.organization_id')
    .select(['users.id', 'users.organization_id', 'users.email', 'users.status', 'subscriptions.plan_key'])
    .where('users.email', '=', address)
    .where('users.status', 'in', HAS_MAILBOX)
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

/** Users who may send as their addresses: those who can sign in to submission (not invited ones). */
const CAN_SEND: Array<'active' | 'suspended'> = ['active', 'suspended'];

/**
 * Postfix's virtual_alias_maps: the primary addresses mail to `address` goes to, in one query on
 * mail_addresses' unique address index (two probes: the address and its domain's `@domain`).
 * Postfix treats a socketmap as a pattern table and asks the full address only, never `@domain`
 * itself, so the catch-all is applied here: an address someone holds keeps its mail — a user's own
 * address answers itself (which also ends Postfix's expansion there), an alias its user's address,
 * a group's address every member with a mailbox (invited members' too) — and only an address nobody holds goes to the
 * catch-all. Aliases, group addresses and catch-alls count only while their domain is verified.
 * A bare `@domain` key asks for the catch-all alone. Empty: not found.
 */
export async function aliasTargets(db: Db, address: string): Promise<string[]> {
  const at = address.indexOf('@');
  const keys = at === 0 ? [address] : [address, address.slice(at)];
  const rows = await db
    .selectFrom('mail_addresses as a')
    .leftJoin('domains as d', 'd.id', 'a.domain_id')
    .leftJoin('group_members as gm', 'gm.group_id', 'a.group_id')
    .leftJoin('users as u', (join) =>
      join.on('u.id', '=', sql<string>`coalesce(a.user_id, gm.user_id)`).on('u.status', 'in', HAS_MAILBOX),
    )
    .select(['a.address', 'u.email'])
    .where('a.address', 'in', keys)
    .where((eb) => eb.or([eb('a.kind', '=', sql.lit('primary')), eb('d.state', '=', sql.lit('verified'))]))
    .orderBy('u.email')
    .execute();
  // A held address with nobody to deliver to (a group without members) is
  // not the catch-all's: it stays not found, so Postfix refuses it.
  const held = rows.filter((row) => row.address === address);
  const chosen = held.length > 0 ? held : rows;
  return chosen.flatMap((row) => (row.email ? [row.email] : []));
}

/**
 * Postfix's smtpd_sender_login_maps: who may send as `address` — the user whose address or alias
 * it is (they sign in with their primary address). Group addresses and catch-alls have no sender:
 * like Google Workspace's default, a group member does not send as the group.
 */
export async function senderLoginOf(db: Db, address: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('mail_addresses as a')
    .leftJoin('domains as d', 'd.id', 'a.domain_id')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select('u.email')
    .where('a.address', '=', address)
    .where((eb) =>
      eb.or([
        eb('a.kind', '=', sql.lit('primary')),
        eb.and([eb('a.kind', '=', sql.lit('alias')), eb('d.state', '=', sql.lit('verified'))]),
      ]),
    )
    .where('u.status', 'in', CAN_SEND)
    .executeTakeFirst();
  return row?.email;
}
