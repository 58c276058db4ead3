import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { groupAddressCard, personCard } from './address-book-cards.ts';

/**
 * Reads of the organisation's address book as Atrium serves it (2026_12_08_0200): the change
 * counter, the cards' rows (which card, its version, whether it is there) by keyset, and the
 * cards' text made from users, mail_addresses and groups for the few a request asks for.
 */
export type CardKind = 'user' | 'address';

export interface CardRow {
  kind: CardKind;
  sourceId: string;
  version: number;
  present: boolean;
}

/** How many card rows one read takes; a request of more reads page after page. */
export const CARD_PAGE = 1000;

/** The organisation's name and its address book's version (0 before its first change). */
export async function directoryStateOf(
  db: Db,
  organizationId: string,
): Promise<{ name: string; version: number } | undefined> {
  const row = await db
    .selectFrom('organizations')
    .leftJoin('directory_versions', 'directory_versions.organization_id', 'organizations.id')
    .select(['organizations.name', sql<number>`coalesce(directory_versions.version, 0)`.as('version')])
    .where('organizations.id', '=', organizationId)
    .executeTakeFirst();
  return row && { name: row.name, version: Number(row.version) };
}

const toRow = (r: { kind: CardKind; source_id: string; version: number; present: boolean }): CardRow => ({
  kind: r.kind,
  sourceId: r.source_id,
  version: Number(r.version),
  present: r.present,
});

/** The cards there at `upTo` or later, after `after` in (kind, id) order. */
export async function presentCardsPage(
  db: Db,
  organizationId: string,
  after: { kind: CardKind; sourceId: string } | undefined,
  limit = CARD_PAGE,
): Promise<CardRow[]> {
  let query = db
    .selectFrom('directory_cards')
    .select(['kind', 'source_id', 'version', 'present'])
    .where('organization_id', '=', organizationId)
    .where('present', '=', true);
  if (after) query = query.where(sql<boolean>`(kind, source_id) > (${after.kind}, ${after.sourceId}::uuid)`);
  const rows = await query.orderBy('kind').orderBy('source_id').limit(limit).execute();
  return rows.map(toRow);
}

/**
 * The cards changed after version `since` up to `upTo` (removed ones included), by version: a
 * sync-collection's answer. The index on (organization_id, version) reads only those.
 */
export async function changedCardsPage(
  db: Db,
  organizationId: string,
  range: { since: number; upTo: number },
  after: { version: number; kind: CardKind; sourceId: string } | undefined,
  limit = CARD_PAGE,
): Promise<CardRow[]> {
  let query = db
    .selectFrom('directory_cards')
    .select(['kind', 'source_id', 'version', 'present'])
    .where('organization_id', '=', organizationId)
    .where('version', '>', range.since)
    .where('version', '<=', range.upTo);
  if (after) {
    query = query.where(
      sql<boolean>`(version, kind, source_id) > (${after.version}, ${after.kind}, ${after.sourceId}::uuid)`,
    );
  }
  const rows = await query.orderBy('version').orderBy('kind').orderBy('source_id').limit(limit).execute();
  return rows.map(toRow);
}

/** These cards (those still there), by `kind:id`: their rows and their vCards. */
export async function cardsOf(
  db: Db,
  organizationId: string,
  organization: string,
  refs: { kind: CardKind; sourceId: string }[],
): Promise<Map<string, { row: CardRow; vcard: string }>> {
  const users = refs.filter((r) => r.kind === 'user').map((r) => r.sourceId);
  const addresses = refs.filter((r) => r.kind === 'address').map((r) => r.sourceId);
  const [people, aliases, groups] = await Promise.all([
    users.length === 0
      ? []
      : db
          .selectFrom('directory_cards as d')
          .innerJoin('users as u', 'u.id', 'd.source_id')
          .select(['u.id', 'u.first_name', 'u.last_name', 'u.email', 'd.version'])
          .where('d.organization_id', '=', organizationId)
          .where('d.kind', '=', 'user')
          .where('d.present', '=', true)
          .where('d.source_id', 'in', users)
          .where('u.organization_id', '=', organizationId)
          .where('u.status', '=', 'active')
          .execute(),
    users.length === 0
      ? []
      : db
          .selectFrom('mail_addresses')
          .select(['user_id', 'address'])
          .where('organization_id', '=', organizationId)
          .where('kind', '=', 'alias')
          .where('user_id', 'in', users)
          .orderBy('address')
          .execute(),
    addresses.length === 0
      ? []
      : db
          .selectFrom('directory_cards as d')
          .innerJoin('mail_addresses as m', 'm.id', 'd.source_id')
          .innerJoin('groups as g', 'g.id', 'm.group_id')
          .select(['m.id', 'm.address', 'g.name', 'd.version'])
          .where('d.organization_id', '=', organizationId)
          .where('d.kind', '=', 'address')
          .where('d.present', '=', true)
          .where('d.source_id', 'in', addresses)
          .where('m.organization_id', '=', organizationId)
          .where('m.kind', '=', 'group')
          .execute(),
  ]);
  const aliasesOf = new Map<string, string[]>();
  for (const a of aliases) {
    if (a.user_id) aliasesOf.set(a.user_id, [...(aliasesOf.get(a.user_id) ?? []), a.address]);
  }
  const cards = new Map<string, { row: CardRow; vcard: string }>();
  for (const p of people) {
    const vcard = personCard(
      {
        userId: p.id,
        firstName: p.first_name,
        lastName: p.last_name,
        email: p.email,
        aliases: aliasesOf.get(p.id) ?? [],
      },
      organization,
    );
    const row = { kind: 'user' as const, sourceId: p.id, version: Number(p.version), present: true };
    cards.set(`user:${p.id}`, { row, vcard });
  }
  for (const g of groups) {
    const vcard = groupAddressCard({ addressId: g.id, name: g.name, address: g.address }, organization);
    const row = { kind: 'address' as const, sourceId: g.id, version: Number(g.version), present: true };
    cards.set(`address:${g.id}`, { row, vcard });
  }
  return cards;
}

/** The users of the organisation whose collections Radicale holds (dav_accounts). */
export async function davAccountIdsOf(db: Db, organizationId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('dav_accounts')
    .select('user_id')
    .where('organization_id', '=', organizationId)
    .execute();
  return rows.map((row) => row.user_id);
}
