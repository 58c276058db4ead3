import { SET_PASSWORD_LINK_HOURS } from '@atrium/contracts/users';
import type { Config } from '../../config.ts';
import { renderEmail, utcTime } from '../../lib/email-template.ts';
import type { MailMessage } from '../../lib/mail.ts';
import type { LinkPurpose } from './invitations.repository.ts';

/** The console page that opens a set-password link. */
export function setPasswordUrl(config: Config, purpose: LinkPurpose, token: string): string {
  const page = purpose === 'invite' ? 'invite' : 'reset-password';
  return new URL(`/${page}/${encodeURIComponent(token)}`, config.publicUrl).href;
}

/**
 * An invitation, or a reset an administrator sent: the link is the button (and the outbox's log
 * line). `to`: where it goes when not to the account's own address (an invitation to the person's
 * personal address, invitation-address.ts).
 */
export function setPasswordMail(
  config: Config,
  link: { purpose: LinkPurpose; token: string; expiresAt: Date },
  user: { email: string; firstName: string; to?: string },
  context: { organizationName: string; adminName: string },
): MailMessage {
  const url = setPasswordUrl(config, link.purpose, link.token);
  const org = context.organizationName;
  const invite = link.purpose === 'invite';
  const to = user.to ?? user.email;
  return {
    to,
    secretForOutboxLog: url,
    ...renderEmail({
      subject: invite ? `You have been invited to ${org}` : `Choose a new password for ${org}`,
      organizationName: org,
      heading: invite ? `Welcome to ${org}` : 'Choose a new password',
      paragraphs: [
        `Hello ${user.firstName},`,
        invite
          ? `${context.adminName} created an account for you (${user.email}) at ${org}. Choose your password to start using it.`
          : `${context.adminName} asked for your password at ${org} (${user.email}) to be reset. Choose a new password.`,
      ],
      button: { label: invite ? 'Choose your password' : 'Choose a new password', url },
      notes: [
        `The link works once and expires in ${SET_PASSWORD_LINK_HOURS} hours (${utcTime(link.expiresAt)}).`,
        'If you did not expect this e-mail, you can ignore it.',
      ],
      footer: `Sent by Atrium to ${to} for ${org}.`,
    }),
  };
}
