import { z } from 'zod';
import { CODE_LENGTH } from './sign-in-values.ts';

/**
 * The rules for what people type to prove who they are, one definition each: the e-mailed
 * 6-digit code (sign-in, sign-up, password reset) and a new password with its confirmation
 * (sign-up, reset, profile, set-password links, an admin's first password).
 */

export const codeField = z
  .string()
  .trim()
  .regex(new RegExp(`^\\d{${CODE_LENGTH}}$`), `Enter the ${CODE_LENGTH}-digit code from the e-mail`);

/** New passwords: the length rule here, the common-password check on the server. */
export const newPasswordField = z
  .string()
  .min(8, 'Use at least 8 characters')
  .max(256, 'Use at most 256 characters');

export const passwordConfirmationField = z.string().min(1, 'Enter the password again');

export const PASSWORDS_DIFFER = 'The passwords do not match';

/**
 * The one "type it twice" rule: for `.superRefine(...)` on an object holding both fields; the
 * error goes on the confirmation field, where the person fixes it.
 */
export function passwordsMatch<P extends string, C extends string>(passwordKey: P, confirmationKey: C) {
  return (value: Record<P | C, string>, ctx: z.RefinementCtx): void => {
    if (value[passwordKey] !== value[confirmationKey]) {
      ctx.addIssue({ code: 'custom', path: [confirmationKey], message: PASSWORDS_DIFFER });
    }
  };
}
