import { fieldError } from '../../../lib/errors.ts';

// The keyset cursor of the lists in address order (aliases, mailboxes): the last address shown.

export const encodeAddressCursor = (address: string) => Buffer.from(address).toString('base64url');

export function decodeAddressCursor(cursor: string): string {
  const address = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[^@\s]+@[^@\s]+$/.test(address)) {
    throw fieldError('cursor', 'This page position is not valid; start again from the first page');
  }
  return address;
}
