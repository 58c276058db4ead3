import { z } from 'zod';
import { labelText } from './text.ts';

/** Loopback hosts where plain http is allowed for redirect URIs (local development, native apps). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a redirect URI is refused, or null when it is acceptable. OAuth 2.0 Security BCP: exact
 * string matching, no wildcards, no fragments, https except on the loopback interface.
 */
export function redirectUriProblem(value: string): string | null {
  const uri = value.trim();
  if (uri === '') return 'Enter a redirect URI';
  if (uri.includes('*')) return 'Wildcards are not allowed; enter the exact redirect URI';
  if (uri.includes('#')) return 'A redirect URI cannot contain a fragment (#)';
  if (/\s/.test(uri)) return 'A redirect URI cannot contain spaces';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'Enter an absolute URL, e.g. https://app.example.com/callback';
  }
  if (url.username || url.password) return 'A redirect URI cannot contain a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : 'Use https:// (http:// is allowed only for localhost and 127.0.0.1)';
  }
  return 'Use an https:// URL';
}

/** Why a launch URL is refused, or null. Same scheme rule as redirect URIs; fragments are fine. */
export function launchUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return 'Enter an absolute URL, e.g. https://app.example.com';
  }
  if (url.username || url.password) return 'A launch URL cannot contain a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'Use https:// (http:// is allowed only for localhost and 127.0.0.1)';
}

export const MAX_REDIRECT_URIS = 10;

export const launchUrlSchema = z
  .string()
  .trim()
  .min(1, 'Enter the launch URL')
  .max(2000, 'The launch URL is too long')
  .superRefine((value, ctx) => {
    const problem = launchUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** Checks each URI of a list with the redirect URI rules, and that none is listed twice. */
function checkUriList(listedTwice: string) {
  return (uris: string[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    uris.forEach((uri, index) => {
      const problem = redirectUriProblem(uri);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [index] });
      else if (seen.has(uri)) ctx.addIssue({ code: 'custom', message: listedTwice, path: [index] });
      seen.add(uri);
    });
  };
}

export const redirectUrisSchema = z
  .array(z.string().trim().max(2000, 'The redirect URI is too long'))
  .min(1, 'Add at least one redirect URI')
  .max(MAX_REDIRECT_URIS, `At most ${MAX_REDIRECT_URIS} redirect URIs`)
  .superRefine(checkUriList('This redirect URI is listed twice'));

/**
 * Where an app may send users after RP-initiated logout: the same rules as redirect URIs, and
 * optional (without one, users land on Atrium's "You are signed out" page).
 */
export const postLogoutRedirectUrisSchema = z
  .array(z.string().trim().max(2000, 'The post-logout redirect URI is too long'))
  .max(MAX_REDIRECT_URIS, `At most ${MAX_REDIRECT_URIS} post-logout redirect URIs`)
  .superRefine(checkUriList('This post-logout redirect URI is listed twice'));

/**
 * Where Atrium POSTs a signed logout token when the user's session at the app must end
 * (OpenID Connect Back-Channel Logout 1.0): the same rules as redirect URIs, optional. An empty
 * value or null means none.
 */
export const backchannelLogoutUriSchema = z
  .string()
  .trim()
  .max(2000, 'The back-channel logout URI is too long')
  .nullable()
  .transform((value) => (value === '' ? null : value))
  .superRefine((value, ctx) => {
    const problem = value === null ? null : redirectUriProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.replace('A redirect URI', 'The URI') });
  });

/** Who may open an app: everyone in the organisation, or members of the listed groups. */
const accessShape = {
  openToEveryone: z.boolean(),
  groupIds: z.array(z.uuid('Unknown group')).max(200),
};

function requireGroups(value: { openToEveryone: boolean; groupIds: string[] }, ctx: z.RefinementCtx) {
  if (!value.openToEveryone && value.groupIds.length === 0) {
    ctx.addIssue({
      code: 'custom',
      message: 'Choose at least one group, or open the app to everyone',
      path: ['groupIds'],
    });
  }
}

const appTitleSchema = labelText(z.string().trim().min(1, 'Enter a name').max(80, 'At most 80 characters'));

/** What the admin sets on an app, when installing it and when changing it. */
const appSettingsShape = {
  title: appTitleSchema,
  launchUrl: launchUrlSchema,
  redirectUris: redirectUrisSchema,
  postLogoutRedirectUris: postLogoutRedirectUrisSchema.optional(),
  backchannelLogoutUri: backchannelLogoutUriSchema.optional(),
  ...accessShape,
};

/**
 * Left out, `postLogoutRedirectUris` takes the catalog template's defaults (for example the launch
 * URL) and `backchannelLogoutUri` is none.
 */
export const installAppBodySchema = z
  .object({
    templateKey: z.string().trim().min(1, 'Choose an app from the catalog'),
    ...appSettingsShape,
  })
  .superRefine(requireGroups);
export type InstallAppBody = z.infer<typeof installAppBodySchema>;

/**
 * Left out, `postLogoutRedirectUris` and `backchannelLogoutUri` are unchanged; a null or empty
 * `backchannelLogoutUri` is none.
 */
export const updateAppBodySchema = z.object(appSettingsShape).superRefine(requireGroups);
export type UpdateAppBody = z.infer<typeof updateAppBodySchema>;

/**
 * Any text: an id that is not one of the organisation's apps, well-formed or not, is a 404
 * ("The app was not found"), as /apps/<anything> in the console is a page not found.
 */
export const appIdParamsSchema = z.object({ appId: z.string().max(200, 'Unknown app') });

/** A catalog entry, with `{siteUrl}` already filled in for the caller's organisation. */
export const appTemplateSchema = z.object({
  key: z.string(),
  title: z.string(),
  description: z.string(),
  image: z.string(),
  color: z.string(),
  /** May still contain nothing the admin must change; empty means "enter your app's address". */
  launchUrl: z.string(),
  /** May contain `{launchUrl}`, replaced as the admin types the launch URL. */
  redirectUriTemplates: z.array(z.string()),
  /** Defaults for the post-logout redirect URIs, with `{launchUrl}` like the redirect URIs. */
  postLogoutRedirectUriTemplates: z.array(z.string()),
  setupInstructions: z.string(),
  /** What the app's OIDC settings need, known before installing (the client ID and secret come after). */
  tokenEndpointAuthMethod: z.string(),
  issuer: z.string(),
  discoveryUrl: z.string(),
  /** The configuration snippet with placeholders where the client ID, secret and app address go. */
  configSnippet: z.string(),
  configSnippetLanguage: z.string(),
});
export type AppTemplate = z.infer<typeof appTemplateSchema>;
export const appCatalogResponseSchema = z.object({ templates: z.array(appTemplateSchema) });

export const appGroupSchema = z.object({ id: z.uuid(), name: z.string() });
export type AppGroup = z.infer<typeof appGroupSchema>;
/** The groups an admin can give an app to ("application roles"). */
export const appGroupOptionsResponseSchema = z.object({ groups: z.array(appGroupSchema) });

export const installedAppSchema = z.object({
  id: z.uuid(),
  templateKey: z.string(),
  title: z.string(),
  image: z.string(),
  color: z.string(),
  launchUrl: z.string(),
  clientId: z.string(),
  openToEveryone: z.boolean(),
  groups: z.array(appGroupSchema),
  createdAt: z.string(),
});
export type InstalledApp = z.infer<typeof installedAppSchema>;
export const installedAppsResponseSchema = z.object({ apps: z.array(installedAppSchema) });

/** Everything an admin needs to configure the app's OIDC settings. */
export const appDetailSchema = installedAppSchema.extend({
  redirectUris: z.array(z.string()),
  postLogoutRedirectUris: z.array(z.string()),
  /** Where Atrium sends logout tokens (OpenID Connect Back-Channel Logout); null when none. */
  backchannelLogoutUri: z.string().nullable(),
  /** client_secret_basic or client_secret_post: how the app must send its secret to the token endpoint. */
  tokenEndpointAuthMethod: z.string(),
  issuer: z.string(),
  discoveryUrl: z.string(),
  setupInstructions: z.string(),
  /** Ready to paste; the secret appears in it only in the response that reveals the secret. */
  configSnippet: z.string(),
  configSnippetLanguage: z.string(),
});
export type AppDetail = z.infer<typeof appDetailSchema>;
export const appDetailResponseSchema = z.object({ app: appDetailSchema });

/** Install and rotate answer with the secret, once; it is never readable again. */
export const appWithSecretResponseSchema = z.object({ app: appDetailSchema, clientSecret: z.string() });
export type AppWithSecretResponse = z.infer<typeof appWithSecretResponseSchema>;

/** The seed spec's App menu item. */
export const appMenuItemSchema = z.object({
  id: z.string(),
  title: z.string(),
  value: z.string(),
  app_id: z.string(),
  image: z.string(),
  alt: z.string(),
  color: z.string(),
  url: z.string(),
});
export type AppMenuItem = z.infer<typeof appMenuItemSchema>;

/** The seed spec's User-apps response, plus the apps themselves. */
export const userApplicationsResponseSchema = z.object({
  status: z.literal('Success'),
  groups: z.object({ groups: z.array(z.object({ name: z.string() })) }),
  site_name: z.string(),
  apps: z.array(appMenuItemSchema),
});
export type UserApplicationsResponse = z.infer<typeof userApplicationsResponseSchema>;
