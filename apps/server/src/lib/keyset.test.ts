import { describe, expect, it } from 'vitest';
import { AppError } from './errors.ts';
import { decodeCursor, encodeCursor, pageOf } from './keyset.ts';

const position = { createdAt: '2026-11-22T05:00:00.123456Z', id: '0b6f9a52-2b6c-4f0e-9d0c-6f6b1f3e2a10' };

describe('keyset cursors', () => {
  it('round-trip the exact position, microseconds included', () => {
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
  });

  it('refuse anything else as a bad "cursor" field', () => {
    const bad = [
      'nonsense',
      Buffer.from('[1,2]').toString('base64url'),
      Buffer.from(JSON.stringify(['2026-11-22T05:00:00Z', position.id])).toString('base64url'),
      Buffer.from(JSON.stringify([position.createdAt, 'not-a-uuid'])).toString('base64url'),
      Buffer.from(JSON.stringify([position.createdAt, `${position.id}' or 1=1`])).toString('base64url'),
    ];
    for (const cursor of bad) {
      let error: unknown;
      try {
        decodeCursor(cursor);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).fields).toEqual({ cursor: expect.any(String) });
    }
  });

  it('cut a limit+1 fetch into the page and the next cursor', () => {
    const rows = [1, 2, 3].map((n) => ({
      id: `${position.id.slice(0, -1)}${n}`,
      created_key: position.createdAt,
    }));
    expect(pageOf(rows, 3)).toEqual({ rows, nextCursor: null });
    const page = pageOf(rows, 2);
    expect(page.rows).toEqual(rows.slice(0, 2));
    expect(decodeCursor(page.nextCursor!)).toEqual({ createdAt: position.createdAt, id: rows[1]!.id });
  });
});
