import { SET_PASSWORD_LINK_HOURS } from '@atrium/contracts/users';
import type { Config } from '../../config.ts';
import type { MailMessage } from '../../lib/mail.ts';
import type { LinkPurpose } from './invitations.repository.ts';

/** The console page that opens a set-password link. */
export function setPasswordUrl(config: Config, purpose: LinkPurpose, token: string): string {
  const page = purpose === 'invite' ? 'invite' : 'reset-password';
  return new URL(`/${page}/${encodeURIComponent(token)}`, config.publicUrl).href;
}

export function setPasswordMail(
  config: Config,
  link: { purpose: LinkPurpose; token: string; expiresAt: Date },
  user: { email: string; firstName: string },
  context: { organizationName: string; adminName: string },
): MailMessage {
  const url = setPasswordUrl(config, link.purpose, link.token);
  const expires = `${link.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const invite = link.purpose === 'invite';
  const subject = invite
    ? `You have been invited to ${context.organizationName}`
    : `Choose a new password for ${context.organizationName}`;
  const intro = invite
    ? `${context.adminName} created an account for you (${user.email}) at ${context.organizationName}.\nChoose your password to start using it:`
    : `${context.adminName} asked for your password at ${context.organizationName} (${user.email}) to be reset.\nChoose a new password:`;
  const text = [
    `Hello ${user.firstName},`,
    '',
    intro,
    '',
    url,
    '',
    `The link works once and expires in ${SET_PASSWORD_LINK_HOURS} hours (${expires}).`,
    'If you did not expect this e-mail, you can ignore it.',
  ].join('\n');
  return { to: user.email, subject, text, secretForOutboxLog: url };
}
