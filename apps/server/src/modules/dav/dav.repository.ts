import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DirectoryGroupAddress, DirectoryPerson } from './address-book-cards.ts';

/** Who a DAV request signs in as: Radicale's user is `userId` (see dav-auth.service.ts). */
export interface DavUser {
  userId: string;
  organizationId: string;
  email: string;
}

/**
 * The active user with this id, when `clientId` is the OIDC client of an app of theirs made from
 * `template`; undefined for a suspended, invited or unknown user, another app, or another
 * organisation's app.
 */
export async function findActiveDavUserOfClient(
  db: Db,
  userId: string,
  clientId: string,
  template: string,
): Promise<DavUser | undefined> {
  const row = await db
    .selectFrom('users')
    .innerJoin('apps', 'apps.organization_id', 'users.organization_id')
    .select(['users.id', 'users.organization_id', 'users.email'])
    .where('users.id', '=', userId)
    .where('users.status', '=', 'active')
    .where('apps.client_id', '=', clientId)
    .where('apps.template_key', '=', template)
    .executeTakeFirst();
  return row && { userId: row.id, organizationId: row.organization_id, email: row.email };
}

/**
 * How often the gate looks again at an account whose defaults were found (docs/dav.md): a look is
 * one PROPFIND of the home on Radicale, so with 5,000 active accounts about 6 a second at most.
 */
export const DEFAULTS_RECHECK_SECONDS = 15 * 60;

/**
 * Whether the user's default collections were made (a row exists) and found recently enough
 * (`fresh`). One read by primary key: what every DAV request costs here. Undefined: the user's
 * first request.
 */
export async function davAccountState(db: Db, userId: string): Promise<{ fresh: boolean } | undefined> {
  const row = await db
    .selectFrom('dav_accounts')
    .select(
      sql<boolean>`coalesce(checked_at > now() - make_interval(secs => ${DEFAULTS_RECHECK_SECONDS}), false)`.as(
        'fresh',
      ),
    )
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row && { fresh: row.fresh };
}

/**
 * The user's default collections were found or made now; `retryInSeconds`: a look failed, and
 * the next is due that much later rather than a whole interval later. The row is made by the
 * first success (and lists the account for the rest of Atrium).
 */
export async function markDavAccountChecked(
  db: Db,
  user: DavUser,
  o: { retryInSeconds?: number } = {},
): Promise<void> {
  const at =
    o.retryInSeconds === undefined
      ? sql<Date>`now()`
      : sql<Date>`now() - make_interval(secs => ${DEFAULTS_RECHECK_SECONDS - o.retryInSeconds})`;
  await db
    .insertInto('dav_accounts')
    .values({ user_id: user.userId, organization_id: user.organizationId, checked_at: at })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ checked_at: at }))
    .execute();
}

/** A collection of the user's was deleted: the next request looks at the defaults again. */
export async function markDavAccountUnchecked(db: Db, userId: string): Promise<void> {
  await db.updateTable('dav_accounts').set({ checked_at: null }).where('user_id', '=', userId).execute();
}

/** The users of the organisation whose accounts get its address book. */
export async function davAccountsOf(db: Db, organizationId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('dav_accounts')
    .select('user_id')
    .where('organization_id', '=', organizationId)
    .execute();
  return rows.map((row) => row.user_id);
}

/** Everything the organisation's address book lists: its active users and its group addresses. */
export async function directoryOf(
  db: Db,
  organizationId: string,
): Promise<{ organization: string; people: DirectoryPerson[]; groups: DirectoryGroupAddress[] } | undefined> {
  const organization = await db
    .selectFrom('organizations')
    .select('name')
    .where('id', '=', organizationId)
    .executeTakeFirst();
  if (!organization) return undefined;
  const [users, addresses] = await Promise.all([
    db
      .selectFrom('users')
      .select(['id', 'first_name', 'last_name', 'email'])
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'active')
      .orderBy('name_key')
      .execute(),
    db
      .selectFrom('mail_addresses')
      .leftJoin('groups', 'groups.id', 'mail_addresses.group_id')
      .select([
        'mail_addresses.id',
        'mail_addresses.kind',
        'mail_addresses.address',
        'mail_addresses.user_id',
        'groups.name as group_name',
      ])
      .where('mail_addresses.organization_id', '=', organizationId)
      .where('mail_addresses.kind', 'in', ['alias', 'group'])
      .orderBy('mail_addresses.address')
      .execute(),
  ]);
  const aliases = new Map<string, string[]>();
  for (const a of addresses) {
    if (a.kind === 'alias' && a.user_id)
      aliases.set(a.user_id, [...(aliases.get(a.user_id) ?? []), a.address]);
  }
  return {
    organization: organization.name,
    people: users.map((u) => ({
      userId: u.id,
      firstName: u.first_name,
      lastName: u.last_name,
      email: u.email,
      aliases: aliases.get(u.id) ?? [],
    })),
    groups: addresses
      .filter((a) => a.kind === 'group' && a.group_name !== null)
      .map((a) => ({ addressId: a.id, name: a.group_name!, address: a.address })),
  };
}
