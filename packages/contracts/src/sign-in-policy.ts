import { z } from 'zod';

/** The organisation's sign-in policy (/organization) and trusted browsers (/profile), issue 17. */

export const strongFactorRequired = z.enum(['nobody', 'admins', 'everyone']);
export type StrongFactorRequired = z.infer<typeof strongFactorRequired>;

export const signInPolicy = z.object({
  /** Who must have a strong factor (today: an authenticator app); they set one up at sign-in. */
  strongFactorRequired,
  /** Whether a code by e-mail counts as a second factor for accounts with a strong one. */
  emailCodeAllowed: z.boolean(),
  /** Whether "Trust this browser for 30 days" is offered and honoured. */
  trustedBrowsersAllowed: z.boolean(),
});
export type SignInPolicy = z.infer<typeof signInPolicy>;

export const trustedBrowser = z.object({
  id: z.string(),
  /** "Chrome on Windows", from the user agent it was trusted with. */
  browser: z.string(),
  trustedAt: z.string(),
  trustedUntil: z.string(),
  lastUsedAt: z.string().nullable(),
  /** The browser this request came from. */
  current: z.boolean(),
});
export type TrustedBrowser = z.infer<typeof trustedBrowser>;
export const trustedBrowsersResponse = z.object({ browsers: z.array(trustedBrowser) });
export type TrustedBrowsersResponse = z.infer<typeof trustedBrowsersResponse>;

/**
 * The end of a forced enrolment at sign-in: the recovery codes, shown once (null when a passkey
 * brought them already), then on to the app.
 */
export const enrolmentDoneResponse = z.object({
  recoveryCodes: z.array(z.string()).nullable(),
  redirectTo: z.string(),
});
export type EnrolmentDoneResponse = z.infer<typeof enrolmentDoneResponse>;
