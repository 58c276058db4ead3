import type { MailConfigFiles, MailConfigOptions } from './mail-config.ts';

/**
 * rspamd's files that carry the organisations' own policy (spam sensitivity, greylisting, allow
 * and block lists): HTTP maps Atrium serves and rspamd re-reads without a restart. The base
 * configuration (rspamd-config.ts) merges these in.
 *
 * - `local.d/multimap.conf`: the allow and block lists. Each rule matches one shape of key in
 *   Atrium's map, `<recipient domain or address>:<sender address or domain>`, so one map per list
 *   serves every organisation (keyed by its verified domains) and every user (by their address).
 *   An allowed sender gets a score that no spam reaches (the score is bypassed, while refusals that
 *   are not scores, such as GTUBE or a forced DMARC reject, still apply); a blocked one is refused.
 * - `rspamd.conf.override`: `settings` as a map (the only way rspamd takes settings over HTTP;
 *   the stock settings.conf says so): per recipient domain, the organisation's Junk and reject
 *   thresholds and greylisting off.
 */
export const RSPAMD_MAPS = {
  allow: 'allow',
  block: 'block',
  settings: 'settings',
} as const;

/** Where rspamd fetches one of Atrium's maps; the token keeps them from anyone else. */
export const rspamdMapUrl = (atriumUrl: string, token: string, map: keyof typeof RSPAMD_MAPS) =>
  `${atriumUrl.replace(/\/$/, '')}/api/mail/rspamd/${token}/${RSPAMD_MAPS[map]}`;

/** The symbols greylisting runs as (rspamd's greylist module); disabled per organisation. */
export const GREYLIST_SYMBOLS = ['GREYLIST_CHECK', 'GREYLIST_SAVE'];

/** Per match: far beyond any spam score, so an allowed sender is never Junk or refused by score. */
export const ALLOW_SCORE = -100;

const RECIPIENTS = {
  DOMAIN: "rcpts('smtp'):domain.lower",
  ADDR: "rcpts('smtp'):addr.lower",
};
const SENDERS = (from: 'smtp' | 'mime') => ({
  ADDR: `from('${from}'):addr.lower`,
  DOMAIN: `from('${from}'):domain.lower`,
  // A domain on a list covers its subdomains too (mail.example.com for example.com).
  ESLD: `from('${from}'):domain.lower.get_tld`,
});

/** Every (recipient, sender) key shape of a list, as multimap rules: name → selector. */
export function listSelectors(): Array<{ suffix: string; selector: string }> {
  const out: Array<{ suffix: string; selector: string }> = [];
  for (const [rcptName, rcpt] of Object.entries(RECIPIENTS)) {
    for (const from of ['smtp', 'mime'] as const) {
      for (const [senderName, sender] of Object.entries(SENDERS(from))) {
        out.push({
          suffix: `${rcptName}_${senderName}_${from.toUpperCase()}`,
          selector: `${rcpt};${sender}`,
        });
      }
    }
  }
  return out;
}

const quote = (s: string) => JSON.stringify(s);

export function rspamdPolicyFiles(o: MailConfigOptions): MailConfigFiles {
  if (!o.rspamdMapToken) return {};
  const url = (map: keyof typeof RSPAMD_MAPS) => rspamdMapUrl(o.atriumUrl, o.rspamdMapToken!, map);
  const rules: string[] = [];
  for (const { suffix, selector } of listSelectors()) {
    rules.push(
      `ATRIUM_ALLOW_${suffix} {`,
      '  type = "selector";',
      `  selector = ${quote(selector)};`,
      '  delimiter = ":";',
      `  map = ${quote(url('allow'))};`,
      `  score = ${ALLOW_SCORE};`,
      '  description = "Sender on the recipient\'s or their organisation\'s allow list (Atrium)";',
      '}',
      `ATRIUM_BLOCK_${suffix} {`,
      '  type = "selector";',
      `  selector = ${quote(selector)};`,
      '  delimiter = ":";',
      `  map = ${quote(url('block'))};`,
      '  score = 0.0;',
      '  action = "reject";',
      '  message = "The recipient does not accept mail from this sender";',
      '  description = "Sender on the recipient\'s or their organisation\'s block list (Atrium)";',
      '}',
    );
  }
  return {
    'rspamd/local.d/multimap.conf': `# Written by Atrium (mail-config): allow and block lists, served by Atrium.\n${rules.join('\n')}\n`,
    // How often rspamd asks for the maps (its default is 5 minutes): a change in Mail Settings
    // reaches it within a minute, and an unchanged map costs a 304. Tests: a second.
    'rspamd/override.d/options.inc': `map_watch_interval = ${o.paths ? '1s' : '30s'};\n`,
    'rspamd/rspamd.conf.override':
      "# Written by Atrium (mail-config): each organisation's spam sensitivity and greylisting.\n" +
      `settings = ${quote(url('settings'))};\n`,
  };
}
