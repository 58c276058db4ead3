import type { MailMessage } from '../../lib/mail.ts';
import { CODE_TTL_SECONDS } from './email-codes.ts';

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const minutes = CODE_TTL_SECONDS / 60;

/** One code e-mail, plain text and HTML; the code is also what the outbox logs without SMTP. */
function codeMail(to: string, subject: string, intro: string, code: string): MailMessage {
  const ignore = 'If you did not ask for this, ignore this e-mail: nothing changes without the code.';
  return {
    to,
    subject,
    secretForOutboxLog: code,
    text: `${intro}\n\n    ${code}\n\nThe code works for ${minutes} minutes. Never share it with anyone.\n\n${ignore}\n\n— Atrium\n`,
    html: `<!DOCTYPE html><html><body style="font-family:system-ui,sans-serif;color:#1f2933">
<p>${escape(intro)}</p>
<p style="font-size:28px;font-weight:600;letter-spacing:6px;margin:24px 0">${escape(code)}</p>
<p>The code works for ${minutes} minutes. Never share it with anyone.</p>
<p style="color:#52606d">${escape(ignore)}</p>
<p>— Atrium</p>
</body></html>`,
  };
}

export const signInCodeMail = (to: string, code: string) =>
  codeMail(to, 'Your Atrium sign-in code', 'Use this code to finish signing in to Atrium:', code);

export const passwordResetCodeMail = (to: string, code: string) =>
  codeMail(to, 'Your Atrium password reset code', 'Use this code to choose a new Atrium password:', code);
