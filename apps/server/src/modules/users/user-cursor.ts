import type { SortDirection, UserSort } from '@atrium/contracts/users';
import { fieldError } from '../../lib/errors.ts';

/**
 * The users list's keyset cursor: the last row's sort value and id, with the sort it belongs to,
 * as base64url JSON. Opaque to clients; a cursor of another sort or a tampered one is refused.
 */
export interface UserCursor {
  sort: UserSort;
  dir: SortDirection;
  value: string;
  id: string;
}

export function encodeCursor(cursor: UserCursor): string {
  return Buffer.from(JSON.stringify([cursor.sort, cursor.dir, cursor.value, cursor.id])).toString(
    'base64url',
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^(-infinity|\d{4}-\d{2}-\d{2}[ T][\d:.]+([+-]\d{2}(:\d{2})?|Z)?)$/;

export function decodeCursor(raw: string, sort: UserSort, dir: SortDirection): UserCursor {
  const invalid = () =>
    fieldError('cursor', 'This page link is no longer valid. Start again from the first page.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || !parsed.every((p) => typeof p === 'string')) {
    throw invalid();
  }
  const [cSort, cDir, value, id] = parsed as string[];
  if (cSort !== sort || cDir !== dir || !UUID.test(id!)) throw invalid();
  if ((sort === 'created' || sort === 'lastSignIn') && !TIMESTAMP.test(value!)) throw invalid();
  return { sort, dir, value: value!, id: id! };
}
