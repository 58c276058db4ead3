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
  more: { button?: { label: string; url: string }; notes?: string[]; outboxLog?: string } = {},
): MailMessage {
  return {
    to: to.email,
    secretForOutboxLog: more.outboxLog ?? code,
    ...renderEmail({
      subject: words.subject,
      organizationName: to.organizationName,
      heading: words.heading,
      paragraphs: [words.intro],
      code,
      button: more.button,
      notes: more.notes ?? [
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

/**
 * A reset code for the browser that asked, and a link that works once in any browser (issue 38):
 * the owner's new phone is never held off by codes others asked for, since their messages came
 * to the owner with links. In the text part the link is on a line of its own.
 */
export const passwordResetCodeMail = (
  to: CodeRecipient,
  code: string,
  link: { url: string; minutes: number },
) =>
  codeMail(
    to,
    {
      subject: 'Your Atrium password reset code',
      heading: 'Your password reset code',
      intro: `To choose a new password for your account at ${to.organizationName}, enter this code in the browser where you asked for it, or open the link below in any browser.`,
    },
    code,
    {
      button: { label: 'Choose a new password', url: link.url },
      notes: [
        `The code works for ${minutes} minutes. The link works once, for ${link.minutes} minutes. Never share them with anyone.`,
        'If you did not ask for this, ignore this e-mail: nothing changes without the code or the link.',
      ],
      outboxLog: `${code}, ${link.url}`,
    },
  );
