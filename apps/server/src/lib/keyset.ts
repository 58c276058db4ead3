import { sql, type RawBuilder } from 'kysely';
import { fieldError } from './errors.ts';

/**
 * Keyset pagination over (created_at desc, id desc): a page starts strictly after the last row
 * of the previous one, so rows are never skipped or repeated however deep the page is.
 *
 * The cursor carries created_at as text with microseconds: a JavaScript Date keeps only
 * milliseconds, and a cursor truncated to milliseconds would repeat or skip rows created within
 * the same millisecond.
 */
export interface KeysetPosition {
  createdAt: string;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** created_at of `table` as exact UTC text, for the cursor of a page's last row. */
export function createdAtKey(table: string): RawBuilder<string> {
  return sql<string>`to_char(${sql.ref(`${table}.created_at`)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string): KeysetPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      TIMESTAMP.test(value[0]) &&
      UUID.test(value[1])
    ) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // Falls through to the error below: a damaged cursor is the caller's mistake, not ours.
  }
  throw fieldError('cursor', 'This page position is not valid; start again from the first page');
}

/** `(created_at, id) < cursor` for `table`: the rows after the cursor in newest-first order. */
export function afterCursor(table: string, position: KeysetPosition): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.id`)}) < (${position.createdAt}::timestamptz, ${position.id}::uuid)`;
}

/**
 * Splits a page fetched with `limit + 1` rows into the page and the cursor of the next one
 * (null on the last page), so no extra count query is needed.
 */
export function pageOf<T extends { id: string; created_key: string }>(
  rows: T[],
  limit: number,
): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const page = rows.slice(0, limit);
  const last = page[page.length - 1]!;
  return { rows: page, nextCursor: encodeCursor({ createdAt: last.created_key, id: last.id }) };
}
