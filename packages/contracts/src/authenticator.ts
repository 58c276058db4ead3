import { z } from 'zod';
import { CODE_LENGTH } from './sign-in-values.ts';

/** Strong sign-in (issue 17): authenticator apps and recovery codes, on /profile and at /login. */

export const authenticatorCodeField = z
  .string()
  .trim()
  .regex(
    new RegExp(`^\\d{${CODE_LENGTH}}$`),
    `Enter the ${CODE_LENGTH}-digit code from your authenticator app`,
  );

/** `xxxxx-xxxxx`; spaces, dashes and case do not matter. */
export const recoveryCodeField = z
  .string()
  .trim()
  .min(1, 'Enter one of your recovery codes')
  .max(40, 'This is not a recovery code')
  .regex(/^[a-z2-7\s-]+$/i, 'This is not a recovery code');

/** "Trust this browser for 30 days", ticked on the second-factor step (issue 17 item 6). */
export const trustBrowserField = z.boolean().optional();

/** The second steps a sign-in may offer after the password ("Use another way"). */
export const secondFactor = z.enum(['passkey', 'totp', 'recovery', 'email']);
export type SecondFactor = z.infer<typeof secondFactor>;

export const authenticatorStatus = z.object({
  /** `none` also when an enrolment was started but never confirmed. */
  status: z.enum(['none', 'active']),
  addedAt: z.string().nullable(),
  recoveryCodesLeft: z.number(),
});
export type AuthenticatorStatus = z.infer<typeof authenticatorStatus>;

/** Shown once, while the user sets the app up; the secret never leaves the server again. */
export const authenticatorEnrolment = z.object({
  secret: z.string(),
  otpauthUri: z.string(),
  /** The QR code as an SVG `data:` URL. */
  qrCode: z.string(),
});
export type AuthenticatorEnrolment = z.infer<typeof authenticatorEnrolment>;

export const confirmAuthenticatorBody = z.object({ code: authenticatorCodeField });
export type ConfirmAuthenticatorBody = z.infer<typeof confirmAuthenticatorBody>;

/** Changes that weaken or reveal a factor ask for the password again. */
export const currentPasswordBody = z.object({
  currentPassword: z.string().min(1, 'Enter your current password').max(256),
});
export type CurrentPasswordBody = z.infer<typeof currentPasswordBody>;

/** New recovery codes, shown once. */
export const recoveryCodesResponse = z.object({ recoveryCodes: z.array(z.string()) });
export type RecoveryCodesResponse = z.infer<typeof recoveryCodesResponse>;

/** An authenticator app set up on /profile: recovery codes only when it is the first strong factor. */
export const authenticatorConfirmedResponse = z.object({ recoveryCodes: z.array(z.string()).nullable() });
export type AuthenticatorConfirmedResponse = z.infer<typeof authenticatorConfirmedResponse>;

export const signInTotpBody = z.object({ code: authenticatorCodeField, trustBrowser: trustBrowserField });
export type SignInTotpBody = z.infer<typeof signInTotpBody>;
export const signInRecoveryBody = z.object({ code: recoveryCodeField, trustBrowser: trustBrowserField });
export type SignInRecoveryBody = z.infer<typeof signInRecoveryBody>;
export const chooseFactorBody = z.object({ factor: secondFactor });
