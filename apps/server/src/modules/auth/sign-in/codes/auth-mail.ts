import { renderEmail } from '../../../../lib/email-template.ts';
import type { MailMessage } from '../../../../lib/mail.ts';
import { CODE_TTL_SECONDS } from './email-codes.ts';

const minutes = CODE_TTL_SECONDS / 60;

/** The account a code is for: its address and its organisation. */
export interface CodeRecipient {
  email: string;
  organizationName: string;
}

/** One code e-mail; the code is also what the outbox logs without SMTP. */
function codeMail(
  to: CodeRecipient,
  words: { subject: string; heading: string; intro: string },
  code: string,
): MailMessage {
  return {
    to: to.email,
    secretForOutboxLog: code,
    ...renderEmail({
      subject: words.subject,
      organizationName: to.organizationName,
      heading: words.heading,
      paragraphs: [words.intro],
      code,
      notes: [
        `The code works for ${minutes} minutes. Never share it with anyone.`,
        'If you did not ask for this, ignore this e-mail: nothing changes without the code.',
      ],
      footer: `Sent by Atrium to ${to.email}, who has an account at ${to.organizationName}.`,
    }),
  };
}

export const signInCodeMail = (to: CodeRecipient, code: string) =>
  codeMail(
    to,
    {
      subject: 'Your Atrium sign-in code',
      heading: 'Your sign-in code',
      intro: `Use this code to finish signing in to ${to.organizationName} on Atrium:`,
    },
    code,
  );

export const passwordResetCodeMail = (to: CodeRecipient, code: string) =>
  codeMail(
    to,
    {
      subject: 'Your Atrium password reset code',
      heading: 'Your password reset code',
      // The code works only in the browser that asked for it (issue 38): say so.
      intro: `Use this code, in the browser where you asked for it, to choose a new password for your account at ${to.organizationName}:`,
    },
    code,
  );
