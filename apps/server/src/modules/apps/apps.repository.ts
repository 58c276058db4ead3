import { sql } from 'kysely';
import type { UserStatus } from '@atrium/contracts/users';
import type { DbOrTrx } from '../../db/database.ts';

export interface AppRow {
  id: string;
  organization_id: string;
  template_key: string;
  title: string;
  launch_url: string;
  client_id: string;
  open_to_everyone: boolean;
  post_logout_redirect_uris: string[];
  backchannel_logout_uri: string | null;
  created_at: Date;
}

export interface AppGroupRef {
  id: string;
  name: string;
}

const appColumns = [
  'a.id',
  'a.organization_id',
  'a.template_key',
  'a.title',
  'a.launch_url',
  'a.client_id',
  'a.open_to_everyone',
  'a.post_logout_redirect_uris',
  'a.backchannel_logout_uri',
  'a.created_at',
] as const;

/** The organisation's installed apps, by title. */
export async function listApps(db: DbOrTrx, organizationId: string): Promise<AppRow[]> {
  return db
    .selectFrom('apps as a')
    .select(appColumns)
    .where('a.organization_id', '=', organizationId)
    .orderBy('a.title')
    .orderBy('a.id')
    .execute();
}

export async function findApp(
  db: DbOrTrx,
  organizationId: string,
  appId: string,
): Promise<AppRow | undefined> {
  return db
    .selectFrom('apps as a')
    .select(appColumns)
    .where('a.organization_id', '=', organizationId)
    .where('a.id', '=', appId)
    .executeTakeFirst();
}

/** Groups of several apps at once (one query), keyed by app id. */
export async function groupsOfApps(
  db: DbOrTrx,
  organizationId: string,
  appIds: string[],
): Promise<Map<string, AppGroupRef[]>> {
  const out = new Map<string, AppGroupRef[]>(appIds.map((id) => [id, []]));
  if (appIds.length === 0) return out;
  const rows = await db
    .selectFrom('app_groups as ag')
    .innerJoin('groups as g', 'g.id', 'ag.group_id')
    .select(['ag.app_id', 'g.id', 'g.name'])
    .where('ag.organization_id', '=', organizationId)
    .where('ag.app_id', 'in', appIds)
    .orderBy('g.name_key')
    .execute();
  for (const row of rows) out.get(row.app_id)?.push({ id: row.id, name: row.name });
  return out;
}

/** Every group of the organisation, for choosing who may open an app. */
export async function listGroupOptions(db: DbOrTrx, organizationId: string): Promise<AppGroupRef[]> {
  return db
    .selectFrom('groups')
    .select(['id', 'name'])
    .where('organization_id', '=', organizationId)
    .orderBy('name_key')
    .execute();
}

/** How many of these group ids belong to the organisation (others' groups count as unknown). */
export async function countOwnGroups(
  db: DbOrTrx,
  organizationId: string,
  groupIds: string[],
): Promise<number> {
  if (groupIds.length === 0) return 0;
  const row = await db
    .selectFrom('groups')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('id', 'in', groupIds)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertApp(
  db: DbOrTrx,
  organizationId: string,
  app: {
    templateKey: string;
    title: string;
    launchUrl: string;
    clientId: string;
    openToEveryone: boolean;
    postLogoutRedirectUris: string[];
    backchannelLogoutUri: string | null;
  },
): Promise<AppRow> {
  return db
    .insertInto('apps')
    .values({
      organization_id: organizationId,
      template_key: app.templateKey,
      title: app.title,
      launch_url: app.launchUrl,
      client_id: app.clientId,
      open_to_everyone: app.openToEveryone,
      post_logout_redirect_uris: JSON.stringify(app.postLogoutRedirectUris),
      backchannel_logout_uri: app.backchannelLogoutUri,
    })
    .returning([
      'id',
      'organization_id',
      'template_key',
      'title',
      'launch_url',
      'client_id',
      'open_to_everyone',
      'post_logout_redirect_uris',
      'backchannel_logout_uri',
      'created_at',
    ])
    .executeTakeFirstOrThrow();
}

export async function updateApp(
  db: DbOrTrx,
  organizationId: string,
  appId: string,
  changes: {
    title: string;
    launchUrl: string;
    openToEveryone: boolean;
    postLogoutRedirectUris: string[];
    backchannelLogoutUri: string | null;
  },
): Promise<void> {
  await db
    .updateTable('apps')
    .set({
      title: changes.title,
      launch_url: changes.launchUrl,
      open_to_everyone: changes.openToEveryone,
      post_logout_redirect_uris: JSON.stringify(changes.postLogoutRedirectUris),
      backchannel_logout_uri: changes.backchannelLogoutUri,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', appId)
    .execute();
}

/** Replaces the app's groups; an app open to everyone keeps none. */
export async function replaceAppGroups(
  db: DbOrTrx,
  organizationId: string,
  appId: string,
  groupIds: string[],
): Promise<void> {
  await db
    .deleteFrom('app_groups')
    .where('organization_id', '=', organizationId)
    .where('app_id', '=', appId)
    .execute();
  if (groupIds.length === 0) return;
  await db
    .insertInto('app_groups')
    .values(
      groupIds.map((groupId) => ({ app_id: appId, group_id: groupId, organization_id: organizationId })),
    )
    .execute();
}

export async function deleteApp(db: DbOrTrx, organizationId: string, appId: string): Promise<void> {
  await db.deleteFrom('apps').where('organization_id', '=', organizationId).where('id', '=', appId).execute();
}

/**
 * The apps a user may open: a user of this organisation in one of `statuses` (by default only
 * active users, who can sign in), and the app is open to everyone or shared with one of the
 * user's groups. One query.
 */
export async function selectAppsForUser(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
  { onlyClientId, statuses = ['active'] }: { onlyClientId?: string; statuses?: UserStatus[] } = {},
): Promise<AppRow[]> {
  let query = db.selectFrom('apps as a').select(appColumns).where('a.organization_id', '=', organizationId);
  if (onlyClientId !== undefined) query = query.where('a.client_id', '=', onlyClientId);
  return query
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('users as u')
          .select(sql`1`.as('one'))
          .where('u.id', '=', userId)
          .where('u.organization_id', '=', organizationId)
          .where('u.status', 'in', statuses),
      ),
    )
    .where((eb) =>
      eb.or([
        eb('a.open_to_everyone', '=', true),
        eb.exists(
          eb
            .selectFrom('app_groups as ag')
            .innerJoin('group_members as gm', 'gm.group_id', 'ag.group_id')
            .select(sql`1`.as('one'))
            .whereRef('ag.app_id', '=', 'a.id')
            .where('gm.user_id', '=', userId),
        ),
      ]),
    )
    .orderBy('a.title')
    .orderBy('a.id')
    .execute();
}

/** Names of the user's groups, for the user-applications response. */
export async function groupNamesOfUser(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('group_members as gm')
    .innerJoin('groups as g', 'g.id', 'gm.group_id')
    .select('g.name')
    .where('gm.organization_id', '=', organizationId)
    .where('gm.user_id', '=', userId)
    .orderBy('g.name_key')
    .execute();
  return rows.map((r) => r.name);
}

export async function siteNameOf(db: DbOrTrx, organizationId: string): Promise<string> {
  const row = await db
    .selectFrom('organizations')
    .select('site_name')
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return row.site_name;
}

/** How the activity log names a user: their name, else their e-mail address. */
export async function userLabel(db: DbOrTrx, organizationId: string, userId: string): Promise<string> {
  const user = await db
    .selectFrom('users')
    .select(['first_name', 'last_name', 'email'])
    .where('id', '=', userId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return user ? `${user.first_name} ${user.last_name}`.trim() || user.email : 'Unknown user';
}
