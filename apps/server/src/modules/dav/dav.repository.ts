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
 * Notes that Radicale now holds this user's collections; true the first time. From then on the
 * organisation's address book is kept in their account (triggers of 2026_12_04_0100 queue it).
 */
export async function recordDavAccount(db: Db, user: DavUser): Promise<boolean> {
  const inserted = await db
    .insertInto('dav_accounts')
    .values({ user_id: user.userId, organization_id: user.organizationId })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return inserted !== undefined;
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
