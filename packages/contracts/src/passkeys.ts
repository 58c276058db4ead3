import { z } from 'zod';
import { currentPasswordBody, trustBrowserField } from './authenticator.ts';

/** Passkeys (WebAuthn, issue 17): the user's own on /profile, and signing in with one at /login. */

export const passkeyName = z
  .string()
  .trim()
  .min(1, 'Give the passkey a name')
  .max(60, 'At most 60 characters');

export const passkeyItem = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  /** Synced between devices by its password manager (backup-eligible). */
  synced: z.boolean(),
});
export type PasskeyItem = z.infer<typeof passkeyItem>;

export const passkeysResponse = z.object({
  passkeys: z.array(passkeyItem),
  /**
   * Recovery codes left for a user with passkeys and no authenticator app; null otherwise (the
   * app's section shows them, or there are none).
   */
  recoveryCodesLeft: z.number().nullable(),
});
export type PasskeysResponse = z.infer<typeof passkeysResponse>;

/**
 * WebAuthn options or an authenticator's answer, in the JSON shape of @simplewebauthn; the
 * server checks every part of an answer itself.
 */
export const webauthnJson = z.record(z.string(), z.unknown());

export const passkeyOptionsResponse = z.object({ options: webauthnJson });
export type PasskeyOptionsResponse = z.infer<typeof passkeyOptionsResponse>;

/** Registering asks for the password first, like every change to the sign-in factors. */
export const passkeyRegistrationBody = currentPasswordBody;

export const registerPasskeyBody = z.object({ name: passkeyName, response: webauthnJson });
export type RegisterPasskeyBody = z.infer<typeof registerPasskeyBody>;

/** Ten recovery codes come with the first strong factor; null when the user had one already. */
export const registerPasskeyResponse = z.object({ recoveryCodes: z.array(z.string()).nullable() });
export type RegisterPasskeyResponse = z.infer<typeof registerPasskeyResponse>;

/** `trustBrowser` counts only after the password (a passkey alone skips no second factor). */
export const signInPasskeyBody = z.object({ response: webauthnJson, trustBrowser: trustBrowserField });
export type SignInPasskeyBody = z.infer<typeof signInPasskeyBody>;
