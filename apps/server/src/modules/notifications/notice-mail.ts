import type { Config } from '../../config.ts';
import { renderEmail, utcTime } from '../../lib/email-template.ts';
import type { MailMessage } from '../../lib/mail.ts';

/** Who a notice goes to: always the account's owner, never an admin. */
export interface NoticeRecipient {
  email: string;
  firstName: string;
  organizationName: string;
}

export type PasswordChange = 'changed' | 'set-by-admin' | 'reset';

const HOW: Record<PasswordChange, { heading: string; how: string; after: string }> = {
  changed: {
    heading: 'Your password was changed',
    how: 'Changed by you on your profile',
    after: 'Your other sessions were signed out.',
  },
  'set-by-admin': {
    heading: 'An administrator set a new password for you',
    how: 'Set by an administrator',
    after: 'You were signed out everywhere.',
  },
  reset: {
    heading: 'Your password was reset',
    how: 'Reset by e-mail (a code or a link sent to this address)',
    after: 'You were signed out everywhere.',
  },
};

const signInUrl = (config: Config) => new URL('/login', config.publicUrl).href;
const noticeFooter = (to: NoticeRecipient) =>
  `You receive this notice because ${to.email} has an account at ${to.organizationName} on Atrium.`;

/** "Your password was changed": when and how; no secret, so it is safe to forward. */
export function passwordChangedMail(
  config: Config,
  to: NoticeRecipient,
  how: PasswordChange,
  at: Date,
): MailMessage {
  const change = HOW[how];
  return {
    to: to.email,
    ...renderEmail({
      subject: 'Your Atrium password was changed',
      organizationName: to.organizationName,
      heading: change.heading,
      paragraphs: [
        `Hello ${to.firstName},`,
        `The password of your account ${to.email} at ${to.organizationName} was changed. ${change.after}`,
      ],
      details: [
        { label: 'When', value: utcTime(at) },
        { label: 'How', value: change.how },
      ],
      notes: [
        'If this was you, there is nothing more to do.',
        'If this was not you, contact your administrator at once: they can set a new password and end every session.',
      ],
      closingLink: { label: 'Sign in to Atrium', url: signInUrl(config) },
      footer: noticeFooter(to),
    }),
  };
}

/** "New sign-in to your Atrium account", from a browser the account had not used before. */
export function newSignInMail(
  config: Config,
  to: NoticeRecipient,
  signIn: { at: Date; browser: string; ip: string },
): MailMessage {
  return {
    to: to.email,
    ...renderEmail({
      subject: 'New sign-in to your Atrium account',
      organizationName: to.organizationName,
      heading: 'New sign-in to your account',
      paragraphs: [
        `Hello ${to.firstName},`,
        `Your account ${to.email} at ${to.organizationName} was signed in to from a browser it had not used before.`,
      ],
      details: [
        { label: 'When', value: utcTime(signIn.at) },
        { label: 'Browser', value: signIn.browser },
        { label: 'IP address', value: signIn.ip },
      ],
      notes: [
        'If this was you, there is nothing to do.',
        'If this was not you, change your password and ask your administrator to end the session.',
      ],
      closingLink: { label: 'Sign in to Atrium', url: signInUrl(config) },
      footer: noticeFooter(to),
    }),
  };
}
