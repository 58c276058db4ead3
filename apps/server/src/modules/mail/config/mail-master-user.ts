import { createHash } from 'node:crypto';
import { deriveKey } from '../../../lib/crypto.ts';

/**
 * Atrium's own Dovecot master user, for mail migration: Atrium signs in to IMAP as
 * `user@domain*atrium-migration` with a password it derives from ATRIUM_SECRET, and writes into
 * the user's mailbox without knowing the user's password. mail-config writes only the password's
 * hash into Dovecot's passwd-file; nobody else can log in as it.
 */
export const MASTER_USER = 'atrium-migration';
export const MASTER_SEPARATOR = '*';

export const masterPassword = (secret: string) =>
  deriveKey(secret, 'dovecot-master-user').export().toString('base64url');

/** The IMAP login name that opens `email`'s mailbox as the master user. */
export const masterLogin = (email: string) => `${email}${MASTER_SEPARATOR}${MASTER_USER}`;

/**
 * The passwd-file line. Unsalted SHA512 is enough for a 256-bit random password (nothing to
 * guess); Dovecot compares with scheme SHA512, base64.
 */
export function masterPasswdFile(password: string): string {
  const hash = createHash('sha512').update(password).digest('base64');
  return `${MASTER_USER}:{SHA512}${hash}\n`;
}
