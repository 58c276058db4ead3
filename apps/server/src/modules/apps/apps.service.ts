import type {
  AppDetail,
  AppGroup,
  AppTemplate,
  AppWithSecretResponse,
  InstallAppBody,
  InstalledApp,
  UpdateAppBody,
  UserApplicationsResponse,
} from '@atrium/contracts/apps';
import type { Config } from '../../config.ts';
import type { Db, DbOrTrx } from '../../db/database.ts';
import type { Actor } from '../organizations/actor.ts';
import { randomToken } from '../../lib/crypto.ts';
import { fieldError, notFound } from '../../lib/errors.ts';
import { backchannelLogoutUriProblem } from '../../oidc/backchannel-logout.ts';
import { newClientSecret, sealClientSecret } from '../../oidc/client-secrets.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { notifyAdmins } from '../notifications/notify.ts';
import { siteUrl } from '../organizations/site-url.ts';
import {
  deleteAppClient,
  insertAppClient,
  clientSettingsOf,
  revokeClientArtifacts,
  setAppClientSecret,
  updateAppClient,
} from './app-clients.repository.ts';
import { appDetailView, appMenuItem, installedAppView, templateView } from './app-views.ts';
import * as repo from './apps.repository.ts';
import { fillPlaceholders, type AppCatalog, type CatalogTemplate } from './catalog.ts';
import { redirectUriProblem } from '@atrium/contracts/apps';
import { revokeAccessLostToApp } from './revoke-lost-access.ts';
import { assertAppAllowed } from '../subscriptions/subscription-limits.ts';
import { listAppsForUser } from './list-apps-for-user.ts';
import { MAIL_TEMPLATE, queueWebmailHosts } from '../webmail/webmail-hosts.job.ts';
import { webmailUrl } from '../webmail/webmail-url.ts';

export interface AppsDeps {
  db: Db;
  config: Config;
  catalog: AppCatalog;
}

const appLink = (appId: string) => `/apps/${appId}`;

/**
 * A Mail app's change reaches Roundcube's per-host file through a job (modules/webmail), queued
 * in the same transaction by a process that writes those files (WEBMAIL_CONFIG_DIR), as the DKIM
 * tables' job is: queued elsewhere, no process might ever run it and the operator status would
 * say 503 for good (issue 38). The writer's 10-minute pass brings other processes' changes.
 */
async function queueWebmailIfMail(trx: DbOrTrx, config: Config, templateKey: string): Promise<void> {
  if (templateKey === MAIL_TEMPLATE && config.webmail?.configDir) await queueWebmailHosts(trx);
}

async function actorLabel(db: DbOrTrx, actor: Actor): Promise<{ userId: string; label: string }> {
  return { userId: actor.userId, label: await repo.userLabel(db, actor.organizationId, actor.userId) };
}

async function siteUrlOfOrganization(deps: AppsDeps, organizationId: string): Promise<string> {
  return siteUrl(deps.config, await repo.siteNameOf(deps.db, organizationId));
}

/** "Available apps": the catalog as this organisation sees it. */
export async function listCatalog(deps: AppsDeps, organizationId: string): Promise<AppTemplate[]> {
  const siteName = await repo.siteNameOf(deps.db, organizationId);
  const site = siteUrl(deps.config, siteName);
  // With Roundcube on this host, Mail opens at the organisation's own webmail address.
  const webmail = webmailUrl(deps.config, siteName);
  return deps.catalog.templates.map((t) =>
    templateView(
      t.key === MAIL_TEMPLATE && webmail && !t.launchUrl ? { ...t, launchUrl: webmail } : t,
      site,
      deps.config,
    ),
  );
}

/** "Selected apps": what the organisation installed, with who may open each. */
export async function listInstalledApps(deps: AppsDeps, organizationId: string): Promise<InstalledApp[]> {
  const rows = await repo.listApps(deps.db, organizationId);
  const groups = await repo.groupsOfApps(
    deps.db,
    organizationId,
    rows.map((r) => r.id),
  );
  return rows.map((row) => installedAppView(deps.catalog, row, groups.get(row.id) ?? []));
}

async function loadDetail(
  deps: AppsDeps,
  db: DbOrTrx,
  organizationId: string,
  appId: string,
  clientSecret?: string,
): Promise<AppDetail> {
  const row = await repo.findApp(db, organizationId, appId);
  if (!row) throw notFound('The app');
  const groups = await repo.groupsOfApps(db, organizationId, [row.id]);
  const client = await clientSettingsOf(db, organizationId, row.client_id);
  return appDetailView(deps.catalog, deps.config, row, groups.get(row.id) ?? [], client, clientSecret);
}

export function getAppDetail(deps: AppsDeps, organizationId: string, appId: string): Promise<AppDetail> {
  return loadDetail(deps, deps.db, organizationId, appId);
}

/** Only the organisation's own groups; an unknown or foreign id is refused without saying which. */
async function checkedGroupIds(
  db: DbOrTrx,
  organizationId: string,
  body: { openToEveryone: boolean; groupIds: string[] },
): Promise<string[]> {
  if (body.openToEveryone) return [];
  const ids = [...new Set(body.groupIds)];
  if ((await repo.countOwnGroups(db, organizationId, ids)) !== ids.length) {
    throw fieldError('groupIds', 'One of the chosen groups does not exist any more; reload and choose again');
  }
  return ids;
}

/**
 * A back-channel logout URI Atrium would never deliver to (loopback, this host, a private network
 * without BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS…) is refused now rather than failing every logout.
 */
function checkBackchannelLogoutUri(deps: AppsDeps, uri: string | null | undefined): void {
  const problem = uri ? backchannelLogoutUriProblem(uri, deps.config) : null;
  if (problem) throw fieldError('backchannelLogoutUri', problem);
}

/** The template's post-logout URIs for this launch URL, keeping only those that pass the rules. */
function defaultPostLogoutUris(template: CatalogTemplate, launchUrl: string, site: string): string[] {
  const base = launchUrl.trim().replace(/\/+$/, '');
  const uris = template.postLogoutRedirectUris.map((uri) =>
    fillPlaceholders(uri, { siteUrl: site, launchUrl: base }),
  );
  return [...new Set(uris)].filter((uri) => redirectUriProblem(uri) === null);
}

/**
 * "App install" + "provider create": registers the OIDC client and the app in one transaction,
 * and answers with the client secret, which is never readable again.
 */
export async function installApp(
  deps: AppsDeps,
  actor: Actor,
  body: InstallAppBody,
): Promise<AppWithSecretResponse> {
  const template = deps.catalog.find(body.templateKey);
  if (!template) throw fieldError('templateKey', 'This app is not in the catalog');
  checkBackchannelLogoutUri(deps, body.backchannelLogoutUri);
  const clientSecret = newClientSecret();
  const postLogoutRedirectUris =
    body.postLogoutRedirectUris ??
    defaultPostLogoutUris(template, body.launchUrl, await siteUrlOfOrganization(deps, actor.organizationId));
  const appId = await deps.db.transaction().execute(async (trx) => {
    await assertAppAllowed(trx, deps.config, actor.organizationId, template);
    const groupIds = await checkedGroupIds(trx, actor.organizationId, body);
    const clientId = randomToken(18);
    await insertAppClient(trx, actor.organizationId, {
      clientId,
      secretSealed: sealClientSecret(deps.config, clientSecret),
      title: body.title,
      redirectUris: body.redirectUris,
      postLogoutRedirectUris,
      backchannelLogoutUri: body.backchannelLogoutUri ?? null,
      tokenEndpointAuthMethod: template.tokenEndpointAuthMethod,
      offlineAccess: template.offlineAccess,
      requirePkce: template.requirePkce,
    });
    const app = await repo.insertApp(trx, actor.organizationId, {
      templateKey: template.key,
      title: body.title,
      launchUrl: body.launchUrl,
      clientId,
      openToEveryone: body.openToEveryone,
      postLogoutRedirectUris,
      backchannelLogoutUri: body.backchannelLogoutUri ?? null,
    });
    await repo.replaceAppGroups(trx, actor.organizationId, app.id, groupIds);
    await queueWebmailIfMail(trx, deps.config, template.key);
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: await actorLabel(trx, actor),
      action: 'app.installed',
      target: { type: 'app', id: app.id, label: body.title },
      ip: actor.ip ?? null,
      details: { template: template.key, openToEveryone: body.openToEveryone, groups: groupIds.length },
    });
    await notifyAdmins(trx, {
      organizationId: actor.organizationId,
      kind: 'app.installed',
      title: `${body.title} was installed`,
      body: body.openToEveryone
        ? 'Everyone in the organisation can open it.'
        : 'Members of the chosen groups can open it.',
      link: appLink(app.id),
    });
    return app.id;
  });
  return { app: await loadDetail(deps, deps.db, actor.organizationId, appId, clientSecret), clientSecret };
}

/** Name, addresses and who may open it; the client's metadata follows in the same transaction. */
export async function updateApp(
  deps: AppsDeps,
  actor: Actor,
  appId: string,
  body: UpdateAppBody,
): Promise<AppDetail> {
  checkBackchannelLogoutUri(deps, body.backchannelLogoutUri);
  await deps.db.transaction().execute(async (trx) => {
    const row = await repo.findApp(trx, actor.organizationId, appId);
    if (!row) throw notFound('The app');
    const groupIds = await checkedGroupIds(trx, actor.organizationId, body);
    const postLogoutRedirectUris = body.postLogoutRedirectUris ?? row.post_logout_redirect_uris;
    const backchannelLogoutUri =
      body.backchannelLogoutUri === undefined ? row.backchannel_logout_uri : body.backchannelLogoutUri;
    await repo.updateApp(trx, actor.organizationId, appId, {
      ...body,
      postLogoutRedirectUris,
      backchannelLogoutUri,
    });
    await repo.replaceAppGroups(trx, actor.organizationId, appId, groupIds);
    // Whoever may no longer open it loses what they hold now, not when their refresh token expires.
    await revokeAccessLostToApp(trx, actor.organizationId, appId);
    await updateAppClient(trx, actor.organizationId, row.client_id, {
      title: body.title,
      redirectUris: body.redirectUris,
      postLogoutRedirectUris,
      backchannelLogoutUri,
    });
    await queueWebmailIfMail(trx, deps.config, row.template_key);
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: await actorLabel(trx, actor),
      action: 'app.updated',
      target: { type: 'app', id: appId, label: body.title },
      ip: actor.ip ?? null,
      details: { openToEveryone: body.openToEveryone, groups: groupIds.length },
    });
  });
  return loadDetail(deps, deps.db, actor.organizationId, appId);
}

/** A new client secret, shown once; the old one stops working at once. */
export async function rotateAppSecret(
  deps: AppsDeps,
  actor: Actor,
  appId: string,
): Promise<AppWithSecretResponse> {
  const clientSecret = newClientSecret();
  await deps.db.transaction().execute(async (trx) => {
    const row = await repo.findApp(trx, actor.organizationId, appId);
    if (!row) throw notFound('The app');
    await setAppClientSecret(
      trx,
      actor.organizationId,
      row.client_id,
      sealClientSecret(deps.config, clientSecret),
    );
    await queueWebmailIfMail(trx, deps.config, row.template_key);
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: await actorLabel(trx, actor),
      action: 'app.secret_rotated',
      target: { type: 'app', id: appId, label: row.title },
      ip: actor.ip ?? null,
    });
  });
  return { app: await loadDetail(deps, deps.db, actor.organizationId, appId, clientSecret), clientSecret };
}

/**
 * "App delete" + "provider delete": removes the app, its client, and every grant, code and token
 * the provider issued to it, in one transaction.
 */
export async function uninstallApp(deps: AppsDeps, actor: Actor, appId: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const row = await repo.findApp(trx, actor.organizationId, appId);
    if (!row) throw notFound('The app');
    await repo.deleteApp(trx, actor.organizationId, appId);
    await revokeClientArtifacts(trx, row.client_id);
    await deleteAppClient(trx, actor.organizationId, row.client_id);
    await queueWebmailIfMail(trx, deps.config, row.template_key);
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: await actorLabel(trx, actor),
      action: 'app.uninstalled',
      target: { type: 'app', id: appId, label: row.title },
      ip: actor.ip ?? null,
    });
  });
}

/** The groups an app can be opened to ("application roles"). */
export function listGroupOptions(deps: AppsDeps, organizationId: string): Promise<AppGroup[]> {
  return repo.listGroupOptions(deps.db, organizationId);
}

/** The seed spec's user-applications call: the caller's groups, the site name, and their apps. */
export async function getUserApplications(
  deps: AppsDeps,
  organizationId: string,
  userId: string,
): Promise<UserApplicationsResponse> {
  const [apps, groupNames, siteName] = await Promise.all([
    listAppsForUser(deps.db, organizationId, userId),
    repo.groupNamesOfUser(deps.db, organizationId, userId),
    repo.siteNameOf(deps.db, organizationId),
  ]);
  return {
    status: 'Success',
    groups: { groups: groupNames.map((name) => ({ name })) },
    site_name: siteName,
    apps: apps.map((app) => appMenuItem(deps.catalog, app)),
  };
}
