import { renderEmail } from '../../lib/email-template.ts';
import type { MailMessage } from '../../lib/mail.ts';
import { CODE_TTL_SECONDS } from '../auth/sign-in/codes/email-codes.ts';

/** The code that confirms a sign-up's address; it names the organisation being created. */
export function signupCodeMail(to: string, organizationName: string, code: string): MailMessage {
  return {
    to,
    secretForOutboxLog: code,
    ...renderEmail({
      subject: 'Your Atrium verification code',
      organizationName,
      heading: 'Confirm your e-mail address',
      paragraphs: [`Your code to confirm this address for ${organizationName} on Atrium:`],
      code,
      notes: [
        `It works for ${CODE_TTL_SECONDS / 60} minutes. If you did not start a sign-up, ignore this message.`,
      ],
      footer: `Sent by Atrium because someone started creating ${organizationName} with ${to}.`,
    }),
  };
}
