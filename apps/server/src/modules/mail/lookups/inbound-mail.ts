import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../../db/database.ts';
import { noteFirstInboundMail } from '../../setup/mail-steps.repository.ts';
import type { SocketmapTable } from '../protocols/socketmap-server.ts';

/**
 * The socketmap name Postfix's port-25 smtpd asks last among its recipient restrictions
 * (`check_recipient_access`, postfix-config.ts): only mail from other servers reaches it, never a
 * colleague's submission (587/465) or Atrium's own relay.
 */
export const INBOUND_MAP = 'atrium-inbound';

/**
 * DUNNO: "pretend the key was not found" (access(5)), and do not try the key's parts (its domain,
 * `user@`), so each recipient costs one lookup. Delivery never changes whatever this answers.
 */
const DUNNO = 'DUNNO';

/** A recipient address as Postfix passes it; anything else (a bare domain, `user@`) is no address. */
const domainOf = (key: string): string | null => {
  const address = key.trim().toLowerCase();
  const match = /^[^@\s]+@([^@\s]+)$/.exec(address);
  return match ? match[1]! : null;
};

/**
 * The setup checklist's "Mail is flowing" (issue 42 item 2): the first recipient another server
 * gives Postfix on port 25 that every earlier restriction accepted (a mailbox, an alias or a group
 * of a verified domain, with room for the message). Postfix asks at RCPT, the last point where it
 * still names the recipient (end-of-data restrictions do not, for a message with several), so the
 * signal is "a message from outside was accepted for you", as Google's setup guide tells it.
 *
 * A failure is logged and answered DUNNO: a socketmap TEMP would make Postfix defer the mail, and
 * the signal is never worth a message.
 */
export function inboundMailTable(db: Db, log: FastifyBaseLogger): SocketmapTable {
  return async (key) => {
    const domain = domainOf(key);
    if (!domain) return null;
    try {
      await noteFirstInboundMail(db, domain);
    } catch (error) {
      log.warn({ err: error }, 'could not note the first inbound message');
    }
    return DUNNO;
  };
}
