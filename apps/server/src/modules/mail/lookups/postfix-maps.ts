import type { Db } from '../../../db/database.ts';
import { aliasTargets, isMailDomain, mailboxOf, senderLoginOf } from './mail-lookups.repository.ts';
import type { SocketmapTable } from '../protocols/socketmap-server.ts';

/** The socketmap names that mail-config writes into Postfix's main.cf. */
export const POSTFIX_MAPS = {
  domains: 'atrium-domains',
  mailboxes: 'atrium-mailboxes',
  senderLogins: 'atrium-sender-logins',
  aliases: 'atrium-aliases',
} as const;

/** Postfix folds keys to lower case itself; anything odd (no @, a bare `@domain`) is a miss. */
const addressOf = (key: string) => {
  const address = key.trim().toLowerCase();
  return /^[^@\s]+@[^@\s]+$/.test(address) ? address : null;
};

/** A catch-all's key as Postfix asks it after the full address: `@domain`. */
const catchAllKeyOf = (key: string) => {
  const domain = key.trim().toLowerCase();
  return /^@[^@\s]+$/.test(domain) ? domain : null;
};

/** The tables Postfix asks Atrium about (docs/mail.md). */
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
    // The SASL login that may send as this address: the user whose address or alias it is (they
    // sign in with their primary address). `@domain` is never a sender: it stays NOTFOUND.
    [POSTFIX_MAPS.senderLogins]: async (key) => {
      const address = addressOf(key);
      return (address && (await senderLoginOf(db, address))) ?? null;
    },
    // virtual_alias_maps: where mail to an address goes, comma-separated. Postfix asks a socketmap
    // the full address only (a pattern table), so the catch-all is applied by the lookup; a
    // mailbox answers itself, where Postfix stops expanding (virtual(5)).
    [POSTFIX_MAPS.aliases]: async (key) => {
      const lookup = addressOf(key) ?? catchAllKeyOf(key);
      const targets = lookup ? await aliasTargets(db, lookup) : [];
      return targets.length > 0 ? targets.join(',') : null;
    },
  };
}
