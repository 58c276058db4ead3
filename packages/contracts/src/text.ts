import type { z } from 'zod';

/**
 * Characters no text field may hold: NUL (PostgreSQL refuses it in text, so it would fail as a
 * server error) and halves of a UTF-16 surrogate pair without the other half (not Unicode text;
 * they cannot be encoded as UTF-8).
 */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Characters a name or title may not hold on top of those: control characters, zero-width
 * characters and bidirectional overrides, which hide or reorder what other users read
 * (a name shown in lists, mails and sign-in pages).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN = /[\u0000-\u001F\u007F\u200B-\u200F\u202A-\u202E\u2066-\u2069]/;

export const UNSTORABLE_MESSAGE =
  'Contains a character that is not allowed (a NUL or an invalid Unicode character)';
export const HIDDEN_MESSAGE = 'Remove the control, invisible or text-direction characters';

export const hasUnstorableCharacter = (value: string): boolean => UNSTORABLE.test(value);

const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** The text with each unstorable character replaced by U+FFFD, to keep (and show) what was refused. */
export const replaceUnstorable = (value: string): string => value.replace(UNSTORABLE_ALL, '\uFFFD');

/**
 * Where in a parsed request part (query, body, path parameters) a string, or an object key,
 * holds an unstorable character: its dotted path ('' for the value itself), or undefined.
 * Iterative, so a deeply nested body cannot exhaust the stack.
 */
export function findUnstorableText(value: unknown): string | undefined {
  const pending: Array<[unknown, string]> = [[value, '']];
  while (pending.length > 0) {
    const [current, path] = pending.pop()!;
    if (typeof current === 'string') {
      if (hasUnstorableCharacter(current)) return path;
    } else if (current !== null && typeof current === 'object') {
      for (const [key, child] of Object.entries(current)) {
        const childPath = path ? `${path}.${key}` : key;
        if (hasUnstorableCharacter(key)) return childPath;
        pending.push([child, childPath]);
      }
    }
  }
  return undefined;
}

/** A name or title: the schema given, refusing unstorable and hidden characters. */
export const labelText = <T extends z.ZodType<string>>(schema: T) =>
  schema
    .refine((value) => !hasUnstorableCharacter(value), { message: UNSTORABLE_MESSAGE })
    .refine((value) => !HIDDEN.test(value), { message: HIDDEN_MESSAGE });
