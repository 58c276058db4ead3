import { z } from 'zod';
import { labelText } from './text.ts';
import { userIdParamsSchema } from './users.ts';

/** Named passwords for mail clients that cannot sign in with OAuth (/profile). */
export const APP_PASSWORD_NAME_MAX = 60;

export const createAppPasswordBody = z.object({
  name: labelText(
    z
      .string({ message: 'Give the app password a name' })
      .trim()
      .min(1, 'Give the app password a name, such as the device or app it is for')
      .max(APP_PASSWORD_NAME_MAX, `Use at most ${APP_PASSWORD_NAME_MAX} characters`),
  ),
});
export type CreateAppPasswordBody = z.infer<typeof createAppPasswordBody>;

export const appPasswordView = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  /** When a mail client last signed in with it; null: never. */
  lastUsedAt: z.string().nullable(),
});
export type AppPasswordView = z.infer<typeof appPasswordView>;

export const appPasswordsResponse = z.object({ appPasswords: z.array(appPasswordView) });

/** The password itself is in this answer only: it is never shown again. */
export const createdAppPasswordResponse = z.object({
  appPassword: appPasswordView,
  password: z.string(),
});

export const appPasswordParams = z.object({
  appPasswordId: z.uuid({ message: 'expected the id of one of your app passwords' }),
});

/** An admin's view of a user's app passwords on /users/:id ("Devices"): the same fields. */
export const userAppPasswordParams = userIdParamsSchema.extend({
  appPasswordId: z.uuid({ message: 'expected the id of one of the user’s app passwords' }),
});
