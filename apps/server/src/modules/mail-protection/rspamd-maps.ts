import { timingSafeEqual } from 'node:crypto';
import { SPAM_THRESHOLDS } from '@atrium/contracts/mail-protection';
import type { DbOrTrx } from '../../db/database.ts';
import { deriveKey } from '../../lib/crypto.ts';
import { GREYLIST_SYMBOLS } from '../mail/config/rspamd-policy-config.ts';
import { nonDefaultSettings, senderListKeys } from './rspamd-maps.repository.ts';

// The bodies of the maps rspamd polls (rspamd-policy-config.ts names their URLs).

/** The secret part of the maps' URLs, derived from ATRIUM_SECRET (mail-config writes the same). */
export const rspamdMapToken = (secret: string) =>
  deriveKey(secret, 'rspamd-policy-maps').export().toString('base64url').slice(0, 32);

export function isMapToken(secret: string, given: string): boolean {
  const expected = Buffer.from(rspamdMapToken(secret));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** One key per line (rspamd's hash map format). */
export async function senderListMap(db: DbOrTrx, list: 'allow' | 'block'): Promise<string> {
  const keys = await senderListKeys(db, list);
  return `# Atrium: ${list} list keys, <recipient domain or address>:<sender or domain>\n${keys.map((k) => `${k}\n`).join('')}`;
}

const ucl = (s: string) => JSON.stringify(s);

/**
 * rspamd's settings map (UCL): one rule per organisation whose settings differ from the default,
 * matching mail to any of its verified domains. `actions` move the Junk (`add header`, which adds
 * `X-Spam: Yes`) and reject thresholds; greylisting off disables the greylist module's symbols.
 * A message to several organisations takes the first rule that matches (rspamd applies one).
 */
export async function settingsMap(db: DbOrTrx): Promise<string> {
  const rows = await nonDefaultSettings(db);
  const rules = rows.map((row) => {
    const thresholds = SPAM_THRESHOLDS[row.sensitivity];
    return [
      `atrium_${row.organization_id.replaceAll('-', '')} {`,
      '  priority = "medium";',
      `  rcpt = [${row.domains.map((d) => ucl(`@${d}`)).join(', ')}];`,
      '  apply {',
      `    actions { "add header" = ${thresholds.junk}; reject = ${thresholds.reject}; }`,
      ...(row.greylisting ? [] : [`    symbols_disabled = [${GREYLIST_SYMBOLS.map(ucl).join(', ')}];`]),
      '  }',
      '}',
    ].join('\n');
  });
  return `# Atrium: organisations' spam settings\n${rules.join('\n')}\n`;
}
