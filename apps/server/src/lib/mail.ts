import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /**
   * A one-time code or link carried by the message; logged only when there is no SMTP
   * server, so someone trying Atrium locally can still sign in.
   */
  secretForOutboxLog?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** SMTP through SMTP_URL when set; otherwise the outbox table plus one log line a message. */
export function createMailer(config: Config, db: Db, log: FastifyBaseLogger): Mailer {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl);
    return {
      async send(message) {
        await transport.sendMail({
          from: config.mailFrom,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
        });
      },
    };
  }
  return {
    async send(message) {
      await db
        .insertInto('mail_outbox')
        .values({
          recipient: message.to,
          subject: message.subject,
          text_body: message.text,
          html_body: message.html ?? null,
        })
        .execute();
      log.info(
        { mail: { to: message.to, subject: message.subject, code: message.secretForOutboxLog } },
        `outbox: "${message.subject}" to ${message.to}${message.secretForOutboxLog ? ` (${message.secretForOutboxLog})` : ''}`,
      );
    },
  };
}
