import { z } from 'zod';
import { codeField, newPasswordField, passwordConfirmationField, passwordsMatch } from './credentials.ts';
import { labelText } from './text.ts';

/** The sign-up stages, in order. Kept on the server, not in a cookie. */
export const SIGNUP_STAGES = ['site', 'email', 'verify', 'account'] as const;
export type SignupStage = (typeof SIGNUP_STAGES)[number];

export const SITE_NAME_MIN = 3;
export const SITE_NAME_MAX = 63;

/**
 * Site names that would collide with the deployment's own hosts or confuse users: www, api,
 * admin, mail, oidc, console and static, and the usual service labels. autoconfig,
 * autodiscover and mta-sts are names mail clients (Thunderbird, Outlook) and sending servers
 * (MTA-STS, RFC 8461) look up by convention: a site there would answer for them.
 */
export const RESERVED_SITE_NAMES: ReadonlySet<string> = new Set([
  'www',
  'api',
  'admin',
  'mail',
  'oidc',
  'console',
  'static',
  'app',
  'apps',
  'auth',
  'login',
  'signup',
  'sso',
  'id',
  'account',
  'accounts',
  'dashboard',
  'smtp',
  'imap',
  'pop',
  'mx',
  'ns1',
  'ns2',
  'dns',
  'ftp',
  'cdn',
  'assets',
  'status',
  'help',
  'support',
  'docs',
  'blog',
  'root',
  'system',
  'atrium',
  'autoconfig',
  'autodiscover',
  'mta-sts',
]);

/** The ACE prefix of internationalised labels (punycode, RFC 5890): `xn--bcher-kva` is `bücher`. */
const PUNYCODE_PREFIX = 'xn--';

/** Why a site name is refused by its form alone (not whether it is taken), or null. */
export function siteNameProblem(value: string): string | null {
  if (value === '') return 'Enter a site name';
  if (value.length < SITE_NAME_MIN) return `Use at least ${SITE_NAME_MIN} characters`;
  if (value.length > SITE_NAME_MAX) return `Use at most ${SITE_NAME_MAX} characters`;
  if (!/^[a-z0-9-]+$/.test(value)) return 'Use only lowercase letters, digits and hyphens';
  if (value.startsWith('-') || value.endsWith('-')) return 'Start and end with a letter or a digit';
  if (value.startsWith(PUNYCODE_PREFIX)) return SITE_NAME_PUNYCODE;
  if (RESERVED_SITE_NAMES.has(value)) return SITE_NAME_RESERVED;
  return null;
}

export const SITE_NAME_RESERVED = 'This site name is reserved. Choose another one';
/** A name starting `xn--` is the encoded form of an internationalised name, which site names are not. */
export const SITE_NAME_PUNYCODE = 'Do not start with “xn--”, the prefix of encoded international names';
export const SITE_NAME_TAKEN = 'This site name is already taken. Choose another one';
/** The name already exists in the operator's DNS zone (a host of theirs): never taken over. */
export const SITE_NAME_IN_DNS = 'This site name is already in use on this domain. Choose another one';
export const EMAIL_REGISTERED = 'This e-mail address is already registered. Sign in instead';

export const siteNameSchema = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    const problem = siteNameProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const organizationNameSchema = labelText(
  z.string().trim().min(1, 'Enter your organisation’s name').max(100, 'Use at most 100 characters'),
);

export const emailSchema = z
  .string()
  .trim()
  .max(254, 'An e-mail address has at most 254 characters')
  .pipe(z.email({ message: 'Enter a valid e-mail address, e.g. name@example.com' }));

export const personNameSchema = (label: string) =>
  labelText(z.string().trim().min(1, `Enter your ${label}`).max(100, 'Use at most 100 characters'));

export const signupSiteBodySchema = z.object({
  organizationName: organizationNameSchema,
  siteName: siteNameSchema,
});

export const signupEmailBodySchema = z.object({ email: emailSchema });

export const signupVerifyBodySchema = z.object({ code: codeField });

/** Password rules beyond length (the common-password list) are checked by the server. */
export const signupAccountBodySchema = z
  .object({
    firstName: personNameSchema('first name'),
    lastName: personNameSchema('last name'),
    password: newPasswordField,
    passwordConfirmation: passwordConfirmationField,
  })
  .superRefine(passwordsMatch('password', 'passwordConfirmation'));

/** Going back to an earlier stage ("stage update"), e.g. to change the e-mail address. */
export const signupStageBodySchema = z.object({ stage: z.enum(SIGNUP_STAGES) });

/** An empty JSON object: keeps body-less writes JSON-only (no cross-site form posts). */
export const emptyBodySchema = z.object({}).strict();

export const signupStateSchema = z.object({
  stage: z.enum(SIGNUP_STAGES),
  organizationName: z.string().nullable(),
  siteName: z.string().nullable(),
  /** `https://<site>.<SITE_BASE_DOMAIN>` once a site name is chosen. */
  siteUrl: z.string().nullable(),
  siteBaseDomain: z.string(),
  email: z.string().nullable(),
  /** When the current code stops working, and when another may be sent (ISO 8601). */
  codeExpiresAt: z.string().nullable(),
  resendAvailableAt: z.string().nullable(),
});
export type SignupState = z.infer<typeof signupStateSchema>;

export const siteAvailabilityQuerySchema = z.object({ siteName: z.string().max(200) });
export const siteAvailabilitySchema = z.object({
  siteName: z.string(),
  available: z.boolean(),
  /** Why it is not available (invalid, reserved or taken), or null. */
  message: z.string().nullable(),
  siteUrl: z.string().nullable(),
});
export type SiteAvailability = z.infer<typeof siteAvailabilitySchema>;

export const signupFinishSchema = z.object({
  /** Where the browser goes next: the single sign-on start with a one-time ticket. */
  redirectTo: z.string(),
});
