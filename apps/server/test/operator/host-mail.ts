import nodemailer from 'nodemailer';
import { expect } from 'vitest';
import { MAIL_HOST, type InstalledHost } from './installed-host.ts';

export interface TestMessage {
  from: string;
  to: string;
  subject: string;
}

/** One message over SMTP to the host's Postfix (port 25, or submission with `auth`). */
export async function sendTo(
  host: InstalledHost,
  port: number,
  message: TestMessage,
  auth?: { user: string; pass: string },
): Promise<void> {
  // A mail client signs in only after STARTTLS, checking the certificate as a phone would; a
  // server on port 25 may send in the clear.
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    name: 'sender.example.net',
    ...(auth
      ? { auth, requireTLS: true, tls: { servername: MAIL_HOST, ca: host.mailCa() } }
      : { ignoreTLS: true }),
  });
  try {
    await transport.sendMail({ ...message, text: `${message.subject}: sent to the installed host.\n` });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${host.logs()}`);
  } finally {
    transport.close();
  }
}

/**
 * A message submitted on 587 as a mail client does: OpenDKIM reloads on its signal thread and
 * tells only syslog when done; until then it answers 4xx (milter_default_action = tempfail),
 * and the client tries again.
 */
export async function submitUntilAccepted(
  host: InstalledHost,
  message: TestMessage,
  auth: { user: string; pass: string },
): Promise<void> {
  await expect
    .poll(
      () =>
        sendTo(host, host.ports.submission, message, auth).then(
          () => 'sent',
          (error: Error) => (/^Message failed: 4\d\d/.test(error.message) ? 'deferred' : error.message),
        ),
      { timeout: 30_000, interval: 500 },
    )
    .toBe('sent');
}
