import type { AppDetail, AppMenuItem, AppTemplate, InstalledApp } from '@atrium/contracts/apps';
import type { Config } from '../../config.ts';
import { deviceEndpoints } from '../devices/device-endpoints.ts';
import type { AppGroupRef, AppRow } from './apps.repository.ts';
import { fillPlaceholders, type AppCatalog, type CatalogTemplate } from './catalog.ts';

/** Shown in snippets in place of the secret, which is readable only once. */
export const SECRET_PLACEHOLDER = '<client secret: shown once at install; rotate it to get a new one>';

/** The template an app came from; an app whose template the operator removed looks like a custom app. */
export function templateOf(catalog: AppCatalog, key: string): CatalogTemplate {
  return catalog.find(key) ?? catalog.find('custom') ?? fallbackTemplate(key);
}

function fallbackTemplate(key: string): CatalogTemplate {
  return {
    key,
    title: 'App',
    description: '',
    image: '/apps/custom.svg',
    color: '#64748b',
    launchUrl: '',
    redirectUris: [],
    postLogoutRedirectUris: [],
    setupInstructions: '',
    tokenEndpointAuthMethod: 'client_secret_basic',
    offlineAccess: true,
    requirePkce: true,
    configSnippet: {
      language: 'env',
      template: 'OIDC_ISSUER={issuer}\nOIDC_CLIENT_ID={clientId}\nOIDC_CLIENT_SECRET={clientSecret}',
    },
  };
}

/** Stand-ins in the snippet shown before installing: the client exists only after. */
export const CLIENT_ID_PLACEHOLDER = '<client ID: shown after install>';
export const INSTALL_SECRET_PLACEHOLDER = '<client secret: shown once after install>';
/** The app's own address in URL hints, until the admin enters it. */
export const APP_HOST_PLACEHOLDER = 'https://<your-host>';

/**
 * A catalog entry for one organisation: `{siteUrl}` filled in, `{launchUrl}` left for the form,
 * and the same settings the installed app's page shows, with placeholders for what install makes.
 */
export function templateView(
  template: CatalogTemplate,
  siteUrl: string,
  config: Pick<Config, 'publicUrl' | 'mailHost'>,
): AppTemplate {
  const endpoints = providerEndpoints(config);
  const launchUrl =
    fillPlaceholders(template.launchUrl, { siteUrl }).replace(/\/+$/, '') || APP_HOST_PLACEHOLDER;
  const filled = (uris: string[]) => uris.map((uri) => fillPlaceholders(uri, { siteUrl, launchUrl }));
  return {
    key: template.key,
    title: template.title,
    description: template.description,
    image: template.image,
    color: template.color,
    launchUrl: fillPlaceholders(template.launchUrl, { siteUrl }),
    redirectUriTemplates: template.redirectUris.map((uri) => fillPlaceholders(uri, { siteUrl })),
    postLogoutRedirectUriTemplates: template.postLogoutRedirectUris.map((uri) =>
      fillPlaceholders(uri, { siteUrl }),
    ),
    setupInstructions: template.setupInstructions,
    tokenEndpointAuthMethod: template.tokenEndpointAuthMethod,
    issuer: endpoints.issuer,
    discoveryUrl: endpoints.discoveryUrl,
    configSnippet: fillPlaceholders(template.configSnippet.template, {
      ...endpoints,
      clientId: CLIENT_ID_PLACEHOLDER,
      clientSecret: INSTALL_SECRET_PLACEHOLDER,
      redirectUri: filled(template.redirectUris)[0] ?? `${APP_HOST_PLACEHOLDER}/callback`,
      postLogoutRedirectUri: filled(template.postLogoutRedirectUris)[0] ?? '',
      backchannelLogoutUri: '',
      launchUrl,
      ...deviceValues(config),
    }),
    configSnippetLanguage: template.configSnippet.language,
  };
}

export function installedAppView(catalog: AppCatalog, row: AppRow, groups: AppGroupRef[]): InstalledApp {
  const template = templateOf(catalog, row.template_key);
  return {
    id: row.id,
    templateKey: row.template_key,
    title: row.title,
    image: template.image,
    color: template.color,
    launchUrl: row.launch_url,
    clientId: row.client_id,
    openToEveryone: row.open_to_everyone,
    groups: row.open_to_everyone ? [] : groups,
    createdAt: row.created_at.toISOString(),
  };
}

/** Where devices reach mail, calendars and contacts: the values /profile's "Set up a device" shows. */
function deviceValues(config: Pick<Config, 'mailHost'>) {
  const { mailHost, imap, smtp, davUrl } = deviceEndpoints(config);
  return { mailHost, imapPort: String(imap.port), submissionPort: String(smtp.port), davUrl };
}

/** The provider's addresses an app is configured with (oidc-provider's default routes under /oidc). */
export function providerEndpoints(config: Pick<Config, 'publicUrl'>) {
  const issuer = new URL('/oidc', config.publicUrl).href;
  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    authorizationEndpoint: `${issuer}/auth`,
    tokenEndpoint: `${issuer}/token`,
    userinfoEndpoint: `${issuer}/me`,
    endSessionEndpoint: `${issuer}/session/end`,
  };
}

export function appDetailView(
  catalog: AppCatalog,
  config: Pick<Config, 'publicUrl' | 'mailHost'>,
  row: AppRow,
  groups: AppGroupRef[],
  client: { redirectUris: string[]; tokenEndpointAuthMethod: string },
  clientSecret?: string,
): AppDetail {
  const { redirectUris } = client;
  const template = templateOf(catalog, row.template_key);
  const endpoints = providerEndpoints(config);
  return {
    ...installedAppView(catalog, row, groups),
    redirectUris,
    postLogoutRedirectUris: row.post_logout_redirect_uris,
    backchannelLogoutUri: row.backchannel_logout_uri,
    tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
    issuer: endpoints.issuer,
    discoveryUrl: endpoints.discoveryUrl,
    setupInstructions: template.setupInstructions,
    configSnippet: fillPlaceholders(template.configSnippet.template, {
      ...endpoints,
      clientId: row.client_id,
      clientSecret: clientSecret ?? SECRET_PLACEHOLDER,
      redirectUri: redirectUris[0] ?? '',
      postLogoutRedirectUri: row.post_logout_redirect_uris[0] ?? '',
      backchannelLogoutUri: row.backchannel_logout_uri ?? '',
      launchUrl: row.launch_url,
      ...deviceValues(config),
    }),
    configSnippetLanguage: template.configSnippet.language,
  };
}

/** The seed spec's App menu item for one app the user may open. */
export function appMenuItem(
  catalog: AppCatalog,
  app: { id: string; title: string; templateKey: string; launchUrl: string; clientId: string },
): AppMenuItem {
  const template = templateOf(catalog, app.templateKey);
  return {
    id: app.id,
    title: app.title,
    value: app.templateKey,
    app_id: app.clientId,
    image: template.image,
    alt: app.title,
    color: template.color,
    url: app.launchUrl,
  };
}
