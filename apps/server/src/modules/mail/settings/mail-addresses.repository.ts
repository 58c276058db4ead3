import { sql } from 'kysely';
import type { DbOrTrx } from '../../../db/database.ts';
import type { MailAddressKind } from '../../../db/mail-tables.ts';

// Aliases, group addresses and catch-alls (mail_addresses); every function but `addressHolder`
// is scoped to one organisation. The lookups Postfix makes are in mail-lookups.repository.ts.

export interface AddressHolder {
  kind: MailAddressKind;
  /** False: another organisation's address; nothing else about it is told. */
  ours: boolean;
  userName: string | null;
  groupName: string | null;
}

/**
 * Who holds an address anywhere in the deployment, to name a clash. Addresses are unique across
 * organisations, so this one look is deployment-wide; names are given for our own only.
 */
export async function addressHolder(
  db: DbOrTrx,
  organizationId: string,
  address: string,
): Promise<AddressHolder | undefined> {
  const row = await db
    .selectFrom('mail_addresses as a')
    .leftJoin('users as u', 'u.id', 'a.user_id')
    .leftJoin('groups as g', 'g.id', 'a.group_id')
    .select(['a.kind', 'a.organization_id', 'u.first_name', 'u.last_name', 'u.email', 'g.name'])
    .where('a.address', '=', address)
    .executeTakeFirst();
  if (!row) return undefined;
  const ours = row.organization_id === organizationId;
  return {
    kind: row.kind,
    ours,
    userName: ours && row.email ? `${row.first_name ?? ''} ${row.last_name ?? ''}`.trim() || row.email : null,
    groupName: ours ? row.name : null,
  };
}

/** One of the organisation's verified domains, by name or id. */
export async function verifiedDomain(
  db: DbOrTrx,
  organizationId: string,
  by: { name: string } | { id: string },
  lock = false,
): Promise<{ id: string; name: string } | undefined> {
  let query = db
    .selectFrom('domains')
    .select(['id', 'name'])
    .where('organization_id', '=', organizationId)
    .where('state', '=', sql.lit('verified'));
  query = 'id' in by ? query.where('id', '=', by.id) : query.where('name', '=', by.name);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** A user of the organisation, its row locked so that counting its aliases holds until commit. */
export async function lockUser(db: DbOrTrx, organizationId: string, userId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'first_name', 'last_name'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
}

/** A group of the organisation, locked: one change of its address at a time. */
export async function lockGroup(db: DbOrTrx, organizationId: string, groupId: string) {
  return db
    .selectFrom('groups')
    .select(['id', 'name'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', groupId)
    .forUpdate()
    .executeTakeFirst();
}

export async function countAliases(db: DbOrTrx, organizationId: string, userId: string): Promise<number> {
  const row = await db
    .selectFrom('mail_addresses')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .where('kind', '=', 'alias')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertAddress(
  db: DbOrTrx,
  values: {
    organizationId: string;
    address: string;
    kind: Exclude<MailAddressKind, 'primary'>;
    domainId: string;
    userId?: string | null;
    groupId?: string | null;
  },
) {
  return db
    .insertInto('mail_addresses')
    .values({
      organization_id: values.organizationId,
      address: values.address,
      kind: values.kind,
      domain_id: values.domainId,
      user_id: values.userId ?? null,
      group_id: values.groupId ?? null,
    })
    .returning(['id', 'address', 'created_at'])
    .executeTakeFirstOrThrow();
}

export interface AliasRow {
  id: string;
  address: string;
  created_at: Date;
  user_id: string;
  email: string;
  first_name: string;
  last_name: string;
}

/**
 * A page of the organisation's aliases in address order, starting after `after`, those starting
 * with `prefix` (a LIKE pattern) only: a range of mail_addresses_org_kind_address_idx.
 */
export async function listAliases(
  db: DbOrTrx,
  organizationId: string,
  options: { prefix?: string; after?: string; limit: number },
): Promise<AliasRow[]> {
  const { rows } = await sql<AliasRow>`
    select a.id, a.address, a.created_at, u.id as user_id, u.email, u.first_name, u.last_name
    from mail_addresses a join users u on u.id = a.user_id
    where a.organization_id = ${organizationId} and a.kind = 'alias'
      ${options.prefix ? sql`and a.address like ${options.prefix}` : sql``}
      ${options.after ? sql`and a.address ~>~ ${options.after}` : sql``}
    order by a.address using ~<~
    limit ${options.limit}`.execute(db);
  return rows;
}

/** Removes an alias of the organisation; its address and user for the activity log. */
export async function deleteAlias(db: DbOrTrx, organizationId: string, aliasId: string) {
  return db
    .deleteFrom('mail_addresses')
    .where('organization_id', '=', organizationId)
    .where('id', '=', aliasId)
    .where('kind', '=', 'alias')
    .returning(['address', 'user_id'])
    .executeTakeFirst();
}

export async function listGroupAddresses(db: DbOrTrx, organizationId: string) {
  return db
    .selectFrom('mail_addresses as a')
    .innerJoin('groups as g', 'g.id', 'a.group_id')
    .select((eb) => [
      'a.address',
      'g.id',
      'g.name',
      eb
        .selectFrom('group_members as gm')
        .whereRef('gm.group_id', '=', 'g.id')
        .select(eb.fn.countAll<string>().as('n'))
        .as('member_count'),
    ])
    .where('a.organization_id', '=', organizationId)
    .where('a.kind', '=', 'group')
    .orderBy('g.name_key')
    .execute();
}

/** Removes the group's address; the address removed, if it had one. */
export async function deleteGroupAddress(db: DbOrTrx, organizationId: string, groupId: string) {
  const row = await db
    .deleteFrom('mail_addresses')
    .where('organization_id', '=', organizationId)
    .where('group_id', '=', groupId)
    .where('kind', '=', 'group')
    .returning('address')
    .executeTakeFirst();
  return row?.address;
}

/** Each verified domain of the organisation with its catch-all's user or group, if any. */
export async function listCatchAlls(db: DbOrTrx, organizationId: string) {
  return db
    .selectFrom('domains as d')
    .leftJoin('mail_addresses as a', (join) =>
      join.onRef('a.domain_id', '=', 'd.id').on('a.kind', '=', 'catch_all'),
    )
    .leftJoin('users as u', 'u.id', 'a.user_id')
    .leftJoin('groups as g', 'g.id', 'a.group_id')
    .select([
      'd.id as domain_id',
      'd.name as domain',
      'a.user_id',
      'a.group_id',
      'u.first_name',
      'u.last_name',
      'u.email',
      'g.name as group_name',
    ])
    .where('d.organization_id', '=', organizationId)
    .where('d.state', '=', sql.lit('verified'))
    .orderBy('d.name')
    .execute();
}

/** Removes the domain's catch-all; true when it had one. */
export async function deleteCatchAll(db: DbOrTrx, organizationId: string, domainId: string) {
  const row = await db
    .deleteFrom('mail_addresses')
    .where('organization_id', '=', organizationId)
    .where('domain_id', '=', domainId)
    .where('kind', '=', 'catch_all')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Which of `addresses` are held as an alias, a group's address or a catch-all anywhere in the
 * deployment (users' own addresses are found in `users`): the CSV import refuses those rows
 * rather than fail its batch on the unique index.
 */
export async function heldOtherThanByUsers(db: DbOrTrx, addresses: string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await db
    .selectFrom('mail_addresses')
    .select('address')
    .where('address', 'in', addresses)
    .where('kind', '<>', 'primary')
    .execute();
  return new Set(rows.map((row) => row.address));
}
