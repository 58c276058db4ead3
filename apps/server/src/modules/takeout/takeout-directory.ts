import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import { createdAtKey } from '../../lib/keyset.ts';

/**
 * What a takeout archive holds of the directory and settings, kind by kind: each kind is read in
 * keyset pages (a large organisation never sits in memory) and written as `<file>.json` and
 * `<file>.csv` with the same columns. Secrets stay out: no password hashes, no client secrets, no
 * DKIM private keys, no verification tokens.
 */

export type Cell = string | number | boolean | null | string[] | Record<string, unknown>;
export type ExportRow = Record<string, Cell>;

export interface ExportKind {
  file: string;
  columns: string[];
  /** The page after `after` (the last row of the previous page, as `page` returned it). */
  page(db: DbOrTrx, organizationId: string, after: PageRow | undefined, limit: number): Promise<PageRow[]>;
}

/** A row as read: the exported columns and the keyset position of the row (`key`, not exported). */
export type PageRow = ExportRow & { key: string[] };

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** `(a, b) > (x, y)` on the given columns, or true on the first page. */
function after(columns: string[], key: string[] | undefined) {
  if (!key) return sql<boolean>`true`;
  return sql<boolean>`(${sql.join(columns.map((c) => sql.ref(c)))}) > (${sql.join(key)})`;
}

const users: ExportKind = {
  file: 'users',
  columns: ['id', 'email', 'firstName', 'lastName', 'status', 'groups', 'createdAt', 'lastSignInAt'],
  async page(db, organizationId, last, limit) {
    const rows = await db
      .selectFrom('users as u')
      .select([
        'u.id',
        'u.email',
        'u.first_name',
        'u.last_name',
        'u.status',
        'u.created_at',
        'u.last_sign_in_at',
      ])
      .select(
        sql<string[]>`coalesce((select array_agg(g.name order by g.name_key) from group_members m
          join groups g on g.id = m.group_id where m.user_id = u.id), '{}')`.as('groups'),
      )
      .where('u.organization_id', '=', organizationId)
      .where(after(['u.id'], last?.key))
      .orderBy('u.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      key: [r.id],
      id: r.id,
      email: r.email,
      firstName: r.first_name,
      lastName: r.last_name,
      status: r.status,
      groups: r.groups,
      createdAt: iso(r.created_at),
      lastSignInAt: iso(r.last_sign_in_at),
    }));
  },
};

const groups: ExportKind = {
  file: 'groups',
  columns: ['id', 'name', 'system', 'createdAt'],
  async page(db, organizationId, last, limit) {
    const rows = await db
      .selectFrom('groups as g')
      .select(['g.id', 'g.name', 'g.is_system', 'g.created_at'])
      .where('g.organization_id', '=', organizationId)
      .where(after(['g.id'], last?.key))
      .orderBy('g.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      key: [r.id],
      id: r.id,
      name: r.name,
      system: r.is_system,
      createdAt: iso(r.created_at),
    }));
  },
};

const groupMembers: ExportKind = {
  file: 'group-members',
  columns: ['groupId', 'group', 'userId', 'email'],
  async page(db, organizationId, last, limit) {
    const rows = await db
      .selectFrom('group_members as m')
      .innerJoin('groups as g', 'g.id', 'm.group_id')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['m.group_id', 'm.user_id', 'g.name', 'u.email'])
      .where('m.organization_id', '=', organizationId)
      .where(after(['m.group_id', 'm.user_id'], last?.key))
      .orderBy('m.group_id')
      .orderBy('m.user_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      key: [r.group_id, r.user_id],
      groupId: r.group_id,
      group: r.name,
      userId: r.user_id,
      email: r.email,
    }));
  },
};

/** Apps without their client secret (which lives in oidc_clients and is never read here). */
const apps: ExportKind = {
  file: 'apps',
  columns: [
    'id',
    'title',
    'template',
    'launchUrl',
    'clientId',
    'openToEveryone',
    'groups',
    'postLogoutRedirectUris',
    'backchannelLogoutUri',
    'createdAt',
  ],
  async page(db, organizationId, last, limit) {
    const rows = await db
      .selectFrom('apps as a')
      .select([
        'a.id',
        'a.title',
        'a.template_key',
        'a.launch_url',
        'a.client_id',
        'a.open_to_everyone',
        'a.post_logout_redirect_uris',
        'a.backchannel_logout_uri',
        'a.created_at',
      ])
      .select(
        sql<string[]>`coalesce((select array_agg(g.name order by g.name_key) from app_groups ag
          join groups g on g.id = ag.group_id where ag.app_id = a.id), '{}')`.as('groups'),
      )
      .where('a.organization_id', '=', organizationId)
      .where(after(['a.id'], last?.key))
      .orderBy('a.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      key: [r.id],
      id: r.id,
      title: r.title,
      template: r.template_key,
      launchUrl: r.launch_url,
      clientId: r.client_id,
      openToEveryone: r.open_to_everyone,
      groups: r.groups,
      postLogoutRedirectUris: r.post_logout_redirect_uris,
      backchannelLogoutUri: r.backchannel_logout_uri,
      createdAt: iso(r.created_at),
    }));
  },
};

/** Domains with their DKIM public key and selector; the private keys stay on the server. */
const domains: ExportKind = {
  file: 'domains',
  columns: ['id', 'name', 'state', 'primary', 'dkimSelector', 'dkimPublicKey', 'createdAt', 'verifiedAt'],
  async page(db, organizationId, last, limit) {
    const rows = await db
      .selectFrom('domains as d')
      .select([
        'd.id',
        'd.name',
        'd.state',
        'd.is_primary',
        'd.dkim_selector',
        'd.dkim_public_key',
        'd.created_at',
        'd.verified_at',
      ])
      .where('d.organization_id', '=', organizationId)
      .where(after(['d.id'], last?.key))
      .orderBy('d.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      key: [r.id],
      id: r.id,
      name: r.name,
      state: r.state,
      primary: r.is_primary,
      dkimSelector: r.dkim_selector,
      dkimPublicKey: r.dkim_public_key,
      createdAt: iso(r.created_at),
      verifiedAt: iso(r.verified_at),
    }));
  },
};

/** Mail settings: every address mail arrives at — users' own, aliases, group addresses, catch-alls. */
const mailAddresses: ExportKind = {
  file: 'mail-addresses',
  columns: ['id', 'address', 'kind', 'user', 'group', 'createdAt'],
  async page(db, organizationId, last, limit) {
    const rows = await db
      .selectFrom('mail_addresses as a')
      .leftJoin('users as u', 'u.id', 'a.user_id')
      .leftJoin('groups as g', 'g.id', 'a.group_id')
      .select(['a.id', 'a.address', 'a.kind', 'a.created_at', 'u.email', 'g.name'])
      .where('a.organization_id', '=', organizationId)
      .where(after(['a.id'], last?.key))
      .orderBy('a.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      key: [r.id],
      id: r.id,
      address: r.address,
      kind: r.kind,
      user: r.email,
      group: r.name,
      createdAt: iso(r.created_at),
    }));
  },
};

/** The activity log, oldest first; the CSV holds `details` as JSON text. */
export const activity: ExportKind = {
  file: 'activity',
  columns: [
    'id',
    'at',
    'actor',
    'actorUserId',
    'action',
    'targetType',
    'targetId',
    'target',
    'ip',
    'details',
  ],
  async page(db, organizationId, last, limit) {
    const rows = await db
      .selectFrom('activity_log as l')
      .select([
        'l.id',
        'l.actor_user_id',
        'l.actor_label',
        'l.action',
        'l.target_type',
        'l.target_id',
        'l.target_label',
        'l.ip',
        'l.details',
      ])
      .select(createdAtKey('l').as('at'))
      .where('l.organization_id', '=', organizationId)
      .where(
        last
          ? sql<boolean>`(l.created_at, l.id) > (${last.key[0]}::timestamptz, ${last.key[1]}::uuid)`
          : sql<boolean>`true`,
      )
      .orderBy('l.created_at')
      .orderBy('l.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      key: [r.at, r.id],
      id: r.id,
      at: r.at,
      actor: r.actor_label,
      actorUserId: r.actor_user_id,
      action: r.action,
      targetType: r.target_type,
      targetId: r.target_id,
      target: r.target_label,
      ip: r.ip,
      details: (r.details ?? {}) as Record<string, unknown>,
    }));
  },
};

/** The directory and settings, in the order the archive lists them. */
export const DIRECTORY_KINDS: ExportKind[] = [users, groups, groupMembers, apps, domains, mailAddresses];

export async function organizationOf(db: DbOrTrx, organizationId: string) {
  const org = await db
    .selectFrom('organizations')
    .selectAll()
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return {
    id: org.id,
    name: org.name,
    siteName: org.site_name,
    legalName: org.legal_name,
    industry: org.industry,
    size: org.size,
    country: org.country,
    timeZone: org.time_zone,
    createdAt: iso(org.created_at),
  };
}
