import { z } from 'zod';
import { passkeyItem } from './passkeys.ts';
import { trustedBrowser } from './sign-in-policy.ts';
import { userIdParamsSchema } from './users.ts';

/**
 * A user's strong sign-in factors as their admin sees them on /users/:id: what there is, never a
 * secret; the admin can remove one of them (the user is e-mailed), or reset them all.
 */

/** A passkey as the user sees it on /profile, without whether it is synced. */
export const adminPasskeyItem = passkeyItem.omit({ synced: true });
export type AdminPasskeyItem = z.infer<typeof adminPasskeyItem>;

/** A trusted browser as the user sees it on /profile, without "the browser this request came from". */
export const adminTrustedBrowserItem = trustedBrowser.omit({ current: true });
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

/**
 * "Reset sign-in factors": the user's app passwords stay unless the admin also revokes them (a lost
 * phone may hold one); without a body, nothing but the factors goes.
 */
export const resetSignInFactorsInput = z.preprocess(
  (body) => body ?? {},
  z.object({ revokeAppPasswords: z.boolean().default(false) }),
);
export type ResetSignInFactorsInput = z.output<typeof resetSignInFactorsInput>;
