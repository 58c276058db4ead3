import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import { peerCertificate } from '../../src/operator/doctor/certificate-checks.ts';
import { MAIL_HOST, type InstalledHost } from './installed-host.ts';

// What a phone or Thunderbird does with the installed host's mail ports: TLS checked against the
// CA the device was told to trust, for the name MAIL_HOST, then a sign-in with an app password.

/** The certificate each TLS port serves, verified for MAIL_HOST against the host's mail CA. */
export async function servedFingerprints(host: InstalledHost) {
  const ca = host.mailCa();
  const served = async (port: number, protocol: 'https' | 'smtp') =>
    (await peerCertificate('127.0.0.1', { host: MAIL_HOST, port, protocol, renewedBy: '' }, ca))
      .fingerprint256;
  return {
    imaps: await served(host.ports.imaps, 'https'),
    submissions: await served(host.ports.submissions, 'https'),
    submission: await served(host.ports.submission, 'smtp'),
  };
}

/** Signs in over IMAPS (993) and lists the inbox's subjects, as a phone's mail app does. */
export async function imapsSubjects(host: InstalledHost, auth: { user: string; pass: string }) {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port: host.ports.imaps,
    secure: true,
    tls: { servername: MAIL_HOST, ca: host.mailCa() },
    auth,
    logger: false,
  });
  await client.connect();
  try {
    const lock = await client.getMailboxLock('INBOX');
    try {
      const subjects: string[] = [];
      for await (const m of client.fetch('1:*', { envelope: true })) subjects.push(m.envelope?.subject ?? '');
      return subjects;
    } finally {
      lock.release();
    }
  } finally {
    await client.logout();
  }
}

/** Sends over submissions (465, TLS from the first byte), as Outlook and phones prefer. */
export async function sendOverSubmissions(
  host: InstalledHost,
  message: { from: string; to: string; subject: string },
  auth: { user: string; pass: string },
): Promise<void> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: host.ports.submissions,
    secure: true,
    tls: { servername: MAIL_HOST, ca: host.mailCa() },
    auth,
  });
  try {
    await transport.sendMail({ ...message, text: `${message.subject}: sent over 465.\n` });
  } finally {
    transport.close();
  }
}
