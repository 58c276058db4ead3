import type { Config } from '../../../config.ts';
import { renderEmail, utcTime } from '../../../lib/email-template.ts';
import type { MailMessage } from '../../../lib/mail.ts';
import type { NoticeRecipient } from '../../notifications/notice-mail.ts';

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

export type FactorChange =
  | 'added'
  | 'removed'
  | 'recovery-codes'
  | 'reset'
  | 'passkey-added'
  | 'passkey-removed'
  | 'trusted-browser-removed';

const CHANGES: Record<FactorChange, { subject: string; heading: string; what: string }> = {
  added: {
    subject: 'An authenticator app was added to your Atrium account',
    heading: 'Authenticator app added',
    what: 'An authenticator app was set up: signing in now asks for its code after the password.',
  },
  removed: {
    subject: 'The authenticator app was removed from your Atrium account',
    heading: 'Authenticator app removed',
    what: 'The authenticator app was removed and its recovery codes no longer work: signing in asks for a code by e-mail again.',
  },
  'passkey-added': {
    subject: 'A passkey was added to your Atrium account',
    heading: 'Passkey added',
    what: 'A passkey was added: it can now sign in to your account, alone or after the password.',
  },
  'passkey-removed': {
    subject: 'A passkey was removed from your Atrium account',
    heading: 'Passkey removed',
    what: 'A passkey was removed and can no longer sign in to your account.',
  },
  'trusted-browser-removed': {
    subject: 'A browser is no longer trusted for your Atrium account',
    heading: 'Trusted browser removed',
    what: 'A browser is no longer trusted: signing in there asks for your second factor again.',
  },
  'recovery-codes': {
    subject: 'New recovery codes were made for your Atrium account',
    heading: 'New recovery codes',
    what: 'Ten new recovery codes were made; the earlier ones no longer work.',
  },
  reset: {
    subject: 'An administrator reset how you sign in to Atrium',
    heading: 'Sign-in factors reset',
    what: 'An administrator removed your authenticator app, recovery codes and trusted browsers: signing in asks for a code by e-mail again, and you may be asked to set up an authenticator app.',
  },
};

/**
 * A change to how the account signs in, to its owner: a session someone else holds must not
 * turn the authenticator app off, or take recovery codes, unnoticed. `byAdmin`: an administrator
 * made it on the user's page (the reset says so in its own words).
 */
export function factorChangedMail(
  config: Config,
  to: NoticeRecipient,
  change: FactorChange,
  at: { at: Date; ip: string; byAdmin?: boolean; appPasswordsRevoked?: boolean },
): MailMessage {
  const words = CHANGES[change];
  const byAdmin = at.byAdmin && change !== 'reset';
  return {
    to: to.email,
    ...renderEmail({
      subject: words.subject,
      organizationName: to.organizationName,
      heading: words.heading,
      paragraphs: [
        `Hello ${to.firstName},`,
        `${words.what} (account ${to.email} at ${to.organizationName})`,
        ...(byAdmin ? ['An administrator of your organisation made this change.'] : []),
        ...(at.appPasswordsRevoked
          ? [
              'Your app passwords were revoked too: set up mail, calendars and contacts on your phone and computers again, with a new app password from your profile.',
            ]
          : []),
      ],
      details: [
        { label: 'When', value: utcTime(at.at) },
        { label: 'IP address', value: at.ip },
      ],
      notes: byAdmin
        ? [
            'If you did not expect it, ask your administrator why, and check your sign-in factors on your profile.',
          ]
        : [
            'If this was you, there is nothing more to do.',
            'If this was not you, change your password at once and tell your administrator.',
          ],
      closingLink: { label: 'Open your profile', url: new URL('/profile', config.publicUrl).href },
      footer: `You receive this notice because ${to.email} has an account at ${to.organizationName} on Atrium.`,
    }),
  };
}
