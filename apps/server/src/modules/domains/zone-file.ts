import { ZONE_FILE_TTL, type DnsRecord } from '@atrium/contracts/domains';
import { txtStrings } from './dns-mapping.ts';

/** A record of the zone file, with the comment line written above it. */
export interface ZoneRecord extends DnsRecord {
  comment?: string;
}

/**
 * A BIND zone-file fragment (RFC 1035 §5) for `origin`'s records: `$ORIGIN` and `$TTL`, then one
 * line per record with owner names relative to the origin (`@` for the apex), the TTL and class
 * written out, and every target (MX, SRV, CNAME) absolute with its final dot. A TXT value is
 * written as quoted character-strings of at most 255 bytes each on one line (a DKIM key is longer
 * than one): resolvers join them back into the one value. No SOA or NS: the zone's own stay.
 */
export function zoneFile(origin: string, records: ZoneRecord[], ttl = ZONE_FILE_TTL): string {
  const zone = origin.toLowerCase().replace(/\.$/, '');
  const lines = [
    `; DNS records for ${zone}, from Atrium.`,
    '; Import this file at your DNS host, or paste its records into your zone.',
    `$ORIGIN ${zone}.`,
    `$TTL ${ttl}`,
  ];
  for (const record of records) {
    if (record.comment) lines.push(`; ${record.comment.replace(/[\r\n]+/g, ' ')}`);
    lines.push(zoneLine(zone, record, ttl));
  }
  return `${lines.join('\n')}\n`;
}

/** One record as a zone-file line: `owner TTL IN TYPE rdata`. */
export function zoneLine(origin: string, record: DnsRecord, ttl = ZONE_FILE_TTL): string {
  return [ownerName(origin, record.host), String(ttl), 'IN', record.type, rdata(record)].join('\t');
}

function rdata(record: DnsRecord): string {
  switch (record.type) {
    case 'TXT':
      return txtStrings(record.value).map(quoted).join(' ');
    case 'CNAME':
      return absolute(record.value);
    case 'MX':
    case 'SRV': {
      // `priority target` and `priority weight port target`: the target is the last field.
      const fields = record.value.trim().split(/\s+/);
      const target = fields.pop()!;
      return [...fields, absolute(target)].join(' ');
    }
  }
}

/** `@` for the apex, the labels before the origin below it, and any other name absolute. */
function ownerName(origin: string, host: string): string {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === origin) return '@';
  if (name.endsWith(`.${origin}`)) return name.slice(0, -(origin.length + 1));
  return `${name}.`;
}

const absolute = (name: string) => (name.endsWith('.') ? name : `${name}.`);

/**
 * A character-string in quotes: `"` and `\` escaped, and any byte outside printable ASCII as `\DDD`
 * (RFC 1035 §5.1), so every escape stands for one byte of the 255.
 */
function quoted(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte < 0x20 || byte > 0x7e) out += `\\${String(byte).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `"${out}"`;
}
