import type { Config } from '../../config.ts';
import type { DbOrTrx } from '../../db/database.ts';
import { randomToken } from '../../lib/crypto.ts';
import { newClientSecret, sealClientSecret } from '../../oidc/client-secrets.ts';
import { siteUrl } from '../organizations/site-url.ts';
import { insertAppClient } from './app-clients.repository.ts';
import { insertApp } from './apps.repository.ts';
import { BUILT_IN_TEMPLATES } from './catalog-defaults.ts';
import { fillPlaceholders } from './catalog.ts';

const CLOUD_STORAGE = BUILT_IN_TEMPLATES.find((t) => t.key === 'cloud-storage')!;

/**
 * docs/app-catalog.md: every new organisation starts with the cloud-storage app, launch URL its site
 * URL, open to everyone. Call it inside the transaction that creates the organisation. Its
 * secret is not shown to anyone; the admin rotates it from the app's page when configuring it.
 */
export async function installDefaultApps(
  trx: DbOrTrx,
  config: Config,
  organization: { id: string; siteName: string },
): Promise<void> {
  const launchUrl = fillPlaceholders(CLOUD_STORAGE.launchUrl, {
    siteUrl: siteUrl(config, organization.siteName),
  });
  const redirectUris = CLOUD_STORAGE.redirectUris.map((uri) => fillPlaceholders(uri, { launchUrl }));
  const base = launchUrl.replace(/\/+$/, '');
  const postLogoutRedirectUris = CLOUD_STORAGE.postLogoutRedirectUris.map((uri) =>
    fillPlaceholders(uri, { launchUrl: base }),
  );
  const clientId = randomToken(18);
  await insertAppClient(trx, organization.id, {
    clientId,
    secretSealed: sealClientSecret(config, newClientSecret()),
    title: CLOUD_STORAGE.title,
    redirectUris,
    postLogoutRedirectUris,
    backchannelLogoutUri: null,
    tokenEndpointAuthMethod: CLOUD_STORAGE.tokenEndpointAuthMethod,
    offlineAccess: CLOUD_STORAGE.offlineAccess,
    requirePkce: CLOUD_STORAGE.requirePkce,
  });
  await insertApp(trx, organization.id, {
    templateKey: CLOUD_STORAGE.key,
    title: CLOUD_STORAGE.title,
    launchUrl,
    clientId,
    openToEveryone: true,
    postLogoutRedirectUris,
    backchannelLogoutUri: null,
  });
}
