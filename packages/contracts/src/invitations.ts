import { z } from 'zod';
import { newPasswordField, passwordConfirmationField, passwordsMatch } from './credentials.ts';

/** Public set-password links: invitations and admin-sent password resets (`/invite/:token`). */

export const invitationParamsSchema = z.object({ token: z.string().min(1).max(200) });

export const invitationSchema = z.object({
  purpose: z.enum(['invite', 'reset']),
  email: z.string(),
  firstName: z.string(),
  organizationName: z.string(),
  expiresAt: z.string(),
});
export type Invitation = z.infer<typeof invitationSchema>;

export const acceptInvitationSchema = z
  .object({ password: newPasswordField, confirmPassword: passwordConfirmationField })
  .superRefine(passwordsMatch('password', 'confirmPassword'));
export type AcceptInvitationInput = z.infer<typeof acceptInvitationSchema>;

export const acceptedInvitationSchema = z.object({
  email: z.string(),
  /** Where the browser goes next: single sign-on with a single-use ticket, then the apps page. */
  next: z.string(),
});
export type AcceptedInvitation = z.infer<typeof acceptedInvitationSchema>;
