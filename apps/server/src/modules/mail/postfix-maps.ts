import type { Db } from '../../db/database.ts';
import { isMailDomain, mailboxOf } from './mail-lookups.repository.ts';
import type { SocketmapTable } from './socketmap-server.ts';

/** The socketmap names that mail-config writes into Postfix's main.cf. */
export const POSTFIX_MAPS = {
  domains: 'atrium-domains',
  mailboxes: 'atrium-mailboxes',
  senderLogins: 'atrium-sender-logins',
} as const;

/** Postfix folds keys to lower case itself; anything odd (no @, a bare `@domain`) is a miss. */
const addressOf = (key: string) => {
  const address = key.trim().toLowerCase();
  return /^[^@\s]+@[^@\s]+$/.test(address) ? address : null;
};

/**
 * The tables Postfix asks Atrium about. Aliases, group addresses and catch-alls will be another
 * map beside these (virtual_alias_maps), leaving these answers as they are.
 */
export function postfixTables(db: Db): Record<string, SocketmapTable> {
  return {
    // Found: the name itself (Postfix only needs a value; LMTP delivery ignores it).
    [POSTFIX_MAPS.domains]: async (key) => {
      const domain = key.trim().toLowerCase();
      return (await isMailDomain(db, domain)) ? domain : null;
    },
    [POSTFIX_MAPS.mailboxes]: async (key) => {
      const address = addressOf(key);
      return address && (await mailboxOf(db, address)) ? address : null;
    },
    // The SASL login that may send as this address: its owner, who signs in with the address.
    [POSTFIX_MAPS.senderLogins]: async (key) => {
      const address = addressOf(key);
      const mailbox = address ? await mailboxOf(db, address) : undefined;
      return mailbox ? mailbox.email : null;
    },
  };
}
