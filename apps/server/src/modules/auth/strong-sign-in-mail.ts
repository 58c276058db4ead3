import type { Config } from '../../config.ts';
import { renderEmail, utcTime } from '../../lib/email-template.ts';
import type { MailMessage } from '../../lib/mail.ts';
import type { NoticeRecipient } from '../notifications/notice-mail.ts';

/**
 * "A recovery code was used": a recovery code gets past the authenticator app, so its owner
 * hears of every use, with how many are left.
 */
export function recoveryCodeUsedMail(
  config: Config,
  to: NoticeRecipient,
  use: { at: Date; ip: string; left: number },
): MailMessage {
  return {
    to: to.email,
    ...renderEmail({
      subject: 'A recovery code was used to sign in to your Atrium account',
      organizationName: to.organizationName,
      heading: 'A recovery code was used',
      paragraphs: [
        `Hello ${to.firstName},`,
        `Your account ${to.email} at ${to.organizationName} was signed in to with its password and one of its recovery codes.`,
      ],
      details: [
        { label: 'When', value: utcTime(use.at) },
        { label: 'IP address', value: use.ip },
        { label: 'Recovery codes left', value: String(use.left) },
      ],
      notes: [
        'If this was you, consider making new recovery codes on your profile when few are left.',
        'If this was not you, change your password and make new recovery codes at once, and tell your administrator.',
      ],
      closingLink: { label: 'Open your profile', url: new URL('/profile', config.publicUrl).href },
      footer: `You receive this notice because ${to.email} has an account at ${to.organizationName} on Atrium.`,
    }),
  };
}
