import { z } from 'zod';
import { secondFactor, trustBrowserField } from './authenticator.ts';
import { codeField, newPasswordField } from './credentials.ts';

/** Sign-in, password reset, console session and own profile: shared by server and console. */

export const emailField = z
  .string()
  .trim()
  .min(1, 'Enter your e-mail address')
  .max(254, 'This e-mail address is too long')
  .pipe(z.email('Enter a valid e-mail address'));

export const signInPasswordBody = z.object({
  email: emailField,
  password: z.string().min(1, 'Enter your password').max(256, 'Use at most 256 characters'),
});
export type SignInPasswordBody = z.infer<typeof signInPasswordBody>;

export const signInCodeBody = z.object({ code: codeField, trustBrowser: trustBrowserField });
export type SignInCodeBody = z.infer<typeof signInCodeBody>;

/** Where a sign-in stands, as the /login page shows it. */
export const interactionState = z.discriminatedUnion('stage', [
  z.object({ stage: z.literal('password'), clientName: z.string() }),
  z.object({
    stage: z.literal('code'),
    clientName: z.string(),
    email: z.string(),
    /** ISO time from which "Send a new code" is allowed (the seed spec's ReSend 60). */
    resendAvailableAt: z.string(),
    /** False while the code's e-mail waits for the mail server: it is queued and will arrive. */
    codeSent: z.boolean(),
    /** The other factors "Use another way" offers; only after the password was right. */
    otherWays: z.array(secondFactor).optional(),
    /** Whether "Trust this browser for 30 days" is offered (the organisation's policy). */
    canTrustBrowser: z.boolean().optional(),
  }),
  /** After the password, for users with a passkey or an authenticator app, or a recovery code. */
  z.object({
    stage: z.enum(['passkey', 'totp', 'recovery']),
    clientName: z.string(),
    email: z.string(),
    otherWays: z.array(secondFactor),
    canTrustBrowser: z.boolean().optional(),
  }),
  /** The organisation requires a strong factor this account lacks: set one up to finish. */
  z.object({ stage: z.literal('enrol'), clientName: z.string(), email: z.string() }),
  z.object({ stage: z.literal('denied'), appName: z.string() }),
  z.object({ stage: z.literal('continue'), redirectTo: z.string() }),
]);
export type InteractionState = z.infer<typeof interactionState>;

export const redirectResponse = z.object({ redirectTo: z.string() });
export const resendResponse = z.object({ resendAvailableAt: z.string(), codeSent: z.boolean() });
export type ResendResponse = z.infer<typeof resendResponse>;

export const passwordResetStartBody = z.object({ email: emailField });
export const passwordResetStartResponse = z.object({ message: z.string(), resendAvailableAt: z.string() });
export const passwordResetCompleteBody = z.object({
  email: emailField,
  code: codeField,
  password: newPasswordField,
});
export type PasswordResetCompleteBody = z.infer<typeof passwordResetCompleteBody>;
/** The link of a reset e-mail (`/forgot-password?token=`): works once, in any browser. */
export const passwordResetLinkBody = z.object({
  token: z.string().min(1, 'Open the whole link from the e-mail').max(200, 'This link is not valid'),
  password: newPasswordField,
});
export type PasswordResetLinkBody = z.infer<typeof passwordResetLinkBody>;

export const sessionResponse = z.object({
  user: z.object({
    id: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    name: z.string(),
    email: z.string(),
    isAdmin: z.boolean(),
    groups: z.array(z.object({ name: z.string() })),
  }),
  organization: z.object({ id: z.string(), name: z.string(), siteName: z.string(), siteUrl: z.string() }),
  /** The operator's ACCOUNT_PORTAL_URL: a console path (default /profile) or an external URL. */
  accountPortalUrl: z.string(),
  csrfToken: z.string(),
});
export type SessionResponse = z.infer<typeof sessionResponse>;

export const ssoLogoutResponse = z.object({ endSessionUrl: z.string() });

export const changePasswordBody = z.object({
  currentPassword: z.string().min(1, 'Enter your current password').max(256),
  newPassword: newPasswordField,
});
export type ChangePasswordBody = z.infer<typeof changePasswordBody>;

/**
 * What a password change did (issue 42 item 3): the other sessions end, and so do the app
 * passwords (whoever knew the old password may have made one, docs/mail.md); `disconnectedDevices`
 * names the app passwords that ended, oldest first, so the person knows what to set up again.
 */
export const changePasswordResponse = z.object({
  message: z.string(),
  disconnectedDevices: z.array(z.string()),
});
export type ChangePasswordResponse = z.infer<typeof changePasswordResponse>;

export const ownSession = z.object({
  id: z.string(),
  current: z.boolean(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  userAgent: z.string().nullable(),
  /** The user agent in plain words ("Chrome on Linux"), as the admin's list of them says it. */
  browser: z.string(),
  ip: z.string().nullable(),
});
export type OwnSession = z.infer<typeof ownSession>;
export const ownSessionsResponse = z.object({ sessions: z.array(ownSession) });
