import { z } from 'zod';
import { ConfigError } from '../../config.ts';
import { catalogKey, catalogTitle, readCatalogFile } from '../../lib/catalog-file.ts';
import { BUILT_IN_TEMPLATES } from './catalog-defaults.ts';

const templateSchema = z.object({
  key: catalogKey(),
  title: catalogTitle(80),
  description: z.string({ message: 'expected a text' }).max(500, 'at most 500 characters').default(''),
  image: z
    .string({ message: 'expected a text' })
    .regex(
      /^(\/[A-Za-z0-9._/-]+|https:\/\/\S+)$/,
      'expected a path such as /apps/wiki.svg or an https:// URL',
    ),
  color: z
    .string({ message: 'expected a text' })
    .regex(/^#[0-9a-fA-F]{6}$/, 'expected a colour such as #0ea5e9'),
  launchUrl: z.string({ message: 'expected a text' }).default(''),
  redirectUris: z.array(z.string({ message: 'expected a text' }), { message: 'expected a list' }).default([]),
  /** Defaults offered at install for where the app may send users after logout; same placeholders. */
  postLogoutRedirectUris: z
    .array(z.string({ message: 'expected a text' }), { message: 'expected a list' })
    .default([]),
  setupInstructions: z.string({ message: 'expected a text' }).default(''),
  /** How the app authenticates at the token endpoint; most server-side OIDC libraries send a form post. */
  tokenEndpointAuthMethod: z
    .enum(['client_secret_basic', 'client_secret_post'], {
      message: 'expected client_secret_basic or client_secret_post',
    })
    .default('client_secret_basic'),
  /**
   * Whether the app gets refresh tokens. With `offline_access` in its request they outlive the
   * user's Atrium sign-out (no consent screen: installed apps are first party); without, they end with it.
   */
  offlineAccess: z.boolean({ message: 'expected true or false' }).default(true),
  /**
   * false only for software that cannot send PKCE and has no setting for it (Debian's Roundcube
   * 1.6): its app may sign in without a code challenge. See oidc/pkce-policy.ts.
   */
  requirePkce: z.boolean({ message: 'expected true or false' }).default(true),
  configSnippet: z
    .object({
      language: z.string({ message: 'expected a text' }).default('text'),
      template: z.string({ message: 'expected a text' }).min(1, 'must not be empty'),
    })
    .default({
      language: 'env',
      template: 'OIDC_ISSUER={issuer}\nOIDC_CLIENT_ID={clientId}\nOIDC_CLIENT_SECRET={clientSecret}',
    }),
});

/** One app template of the catalog, as stored (placeholders unresolved). */
export type CatalogTemplate = z.infer<typeof templateSchema>;

const fileSchema = z.object(
  {
    /** false: the file's apps replace the built-in ones instead of adding to / overriding them. */
    includeDefaults: z.boolean({ message: 'expected true or false' }).default(true),
    apps: z.array(templateSchema, { message: 'expected a list of apps' }),
  },
  { message: 'expected an object with an "apps" list' },
);

export interface AppCatalog {
  templates: CatalogTemplate[];
  find(key: string): CatalogTemplate | undefined;
}

function catalogOf(templates: CatalogTemplate[]): AppCatalog {
  const byKey = new Map(templates.map((t) => [t.key, t]));
  return { templates, find: (key) => byKey.get(key) };
}

/**
 * The built-in catalog, or the operator's file (APP_CATALOG, JSON or YAML) merged over it by key.
 * Read once at start-up; a bad file stops start-up with a ConfigError naming the file and the field.
 */
export function loadAppCatalog(file: string | undefined): AppCatalog {
  if (!file) return catalogOf(BUILT_IN_TEMPLATES);
  const data = readCatalogFile('APP_CATALOG', file, fileSchema, (d) => ({
    list: 'apps',
    keys: d.apps.map((app) => app.key),
  }));
  const merged = new Map((data.includeDefaults ? BUILT_IN_TEMPLATES : []).map((t) => [t.key, t] as const));
  for (const app of data.apps) merged.set(app.key, app);
  if (merged.size === 0) throw new ConfigError('APP_CATALOG', `${file}: field apps: lists no apps`);
  return catalogOf([...merged.values()]);
}

/** Replaces `{name}` placeholders; unknown names are left as they are. */
export function fillPlaceholders(template: string, values: Record<string, string>): string {
  return template.replace(/\{([A-Za-z]+)\}/g, (whole, name: string) => values[name] ?? whole);
}
