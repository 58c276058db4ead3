import { z } from 'zod';
import { userIdParamsSchema } from './users.ts';

/**
 * A user's strong sign-in factors as their admin sees them on /users/:id: what there is, never a
 * secret; the admin can remove one of them (the user is e-mailed), or reset them all.
 */
export const adminPasskeyItem = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type AdminPasskeyItem = z.infer<typeof adminPasskeyItem>;

export const adminTrustedBrowserItem = z.object({
  id: z.string(),
  /** "Chrome on Windows", from the user agent it was trusted with. */
  browser: z.string(),
  trustedAt: z.string(),
  trustedUntil: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type AdminTrustedBrowserItem = z.infer<typeof adminTrustedBrowserItem>;

export const userFactorsResponse = z.object({
  passkeys: z.array(adminPasskeyItem),
  /** The confirmed authenticator app and since when; null without one. */
  authenticator: z.object({ since: z.string() }).nullable(),
  /** Unused recovery codes (they come with the first strong factor). */
  recoveryCodesLeft: z.number(),
  trustedBrowsers: z.array(adminTrustedBrowserItem),
});
export type UserFactorsResponse = z.infer<typeof userFactorsResponse>;

export const userPasskeyParams = userIdParamsSchema.extend({ passkeyId: z.uuid('Not a valid passkey id') });
export const userTrustedBrowserParams = userIdParamsSchema.extend({
  browserId: z.uuid('Not a valid trusted browser id'),
});
