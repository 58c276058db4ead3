import {
  DOMAIN_SITE_LABEL,
  type DnsMappingRecord,
  type DnsRecord,
  type MappingPurpose,
} from '@atrium/contracts/domains';
import type { DnsAnswer, DnsClient } from '../../lib/dns.ts';
import { deviceSrvRecords, deviceNames } from '../devices/device-dns.ts';
import { mtaStsPolicy, mtaStsRecords, type MtaStsMode } from '../mta-sts/mta-sts-policy.ts';
import { dkimRecordValue, type PublishedDkimKey } from './dkim.ts';
import { evaluateDomainSpf } from './domain-spf-check.ts';

export interface MappingTarget {
  /** ASCII domain name. */
  name: string;
  /** The current key first, then any key of a rotation in progress (publishedDkimKeys). */
  dkimKeys: PublishedDkimKey[];
  siteName: string;
}

export interface MappingSettings {
  mailHost: string;
  siteBaseDomain: string;
}

type ExpectedRecord = DnsRecord & { purpose: MappingPurpose };

/**
 * What the organisation publishes so mail and its site work on its own domain. DMARC asks
 * receivers to quarantine failures and send aggregate reports to dmarc@<domain>: strict enough
 * to stop spoofing, without rejecting mail while the admin is still setting things up.
 * `mtaStsMode` (mtaStsMode() in mta-sts/mail-certificate-seen.ts) decides the MTA-STS policy's id.
 */
export function expectedRecords(
  target: MappingTarget,
  settings: MappingSettings,
  mtaStsMode: MtaStsMode,
): ExpectedRecord[] {
  const { name } = target;
  return [
    { purpose: 'mx', host: name, type: 'MX', value: `10 ${settings.mailHost}` },
    { purpose: 'spf', host: name, type: 'TXT', value: `v=spf1 include:${settings.mailHost} ~all` },
    ...target.dkimKeys.map((key): ExpectedRecord => ({
      purpose: 'dkim',
      host: `${key.selector}._domainkey.${name}`,
      type: 'TXT',
      value: dkimRecordValue(key.publicKey),
    })),
    {
      purpose: 'dmarc',
      host: `_dmarc.${name}`,
      type: 'TXT',
      value: `v=DMARC1; p=quarantine; rua=mailto:dmarc@${name}`,
    },
    {
      purpose: 'site',
      host: `${DOMAIN_SITE_LABEL}.${name}`,
      type: 'CNAME',
      value: `${target.siteName}.${settings.siteBaseDomain}`,
    },
    ...deviceSrvRecords(name, settings),
    ...deviceNames(name, `${target.siteName}.${settings.siteBaseDomain}`),
    ...mtaStsRecords(name, settings.mailHost, mtaStsPolicy(settings.mailHost, mtaStsMode)),
  ];
}

/** Looks every record up at once and compares what DNS holds with what is expected. */
export async function checkMapping(dns: DnsClient, expected: ExpectedRecord[]): Promise<DnsMappingRecord[]> {
  return Promise.all(expected.map((record) => checkOne(dns, record)));
}

async function checkOne(dns: DnsClient, record: ExpectedRecord): Promise<DnsMappingRecord> {
  switch (record.purpose) {
    case 'mx': {
      const answer = await dns.mx(record.host);
      const host = record.value.split(' ')[1]!;
      return compare(
        record,
        mapAnswer(answer, (mx) => `${mx.priority} ${hostName(mx.exchange)}`),
        (found) => found.some((v) => v.split(' ')[1] === host),
      );
    }
    case 'site':
    case 'autoconfig':
    case 'autodiscover':
    case 'mta_sts_host': {
      const answer = await dns.cname(record.host);
      return compare(record, mapAnswer(answer, hostName), (found) => found.includes(hostName(record.value)));
    }
    case 'imaps':
    case 'submission':
    case 'caldavs':
    case 'carddavs': {
      // Priority and weight are the publisher's choice; the port and the target must be ours.
      const answer = await dns.srv(record.host);
      const wanted = record.value.split(' ').slice(2).join(' ');
      return compare(
        record,
        mapAnswer(answer, (srv) => `${srv.priority} ${srv.weight} ${srv.port} ${hostName(srv.name)}`),
        (found) => found.some((v) => v.split(' ').slice(2).join(' ') === wanted),
      );
    }
    case 'spf': {
      const include = spfInclude(record.value);
      const compared = await compareTxt(dns, record, 'v=spf1', (value) => spfIncludes(value, include));
      return evaluateDomainSpf(dns, compared, include.slice('include:'.length));
    }
    case 'dkim':
    case 'dmarc':
    case 'mta_sts':
    case 'tls_reports':
      return compareTxt(dns, record, TXT_VERSION[record.purpose], (value) => tagsMatch(value, record.value));
  }
}

/** The version tag that starts each kind of TXT record; other TXT records at the host are ignored. */
const TXT_VERSION = { dkim: 'v=DKIM1', dmarc: 'v=DMARC1', mta_sts: 'v=STSv1', tls_reports: 'v=TLSRPTv1' };

/** TXT hosts may hold unrelated records (the verification token sits beside SPF): keep the relevant ones. */
async function compareTxt(
  dns: DnsClient,
  record: ExpectedRecord,
  version: string,
  matches: (value: string) => boolean,
): Promise<DnsMappingRecord> {
  const answer = await dns.txt(record.host);
  const relevant = mapAnswer(answer, (v) => v.trim());
  const filtered: DnsAnswer<string> =
    relevant.status === 'found'
      ? {
          status: 'found',
          records: relevant.records.filter((v) => v.toLowerCase().startsWith(version.toLowerCase())),
        }
      : relevant;
  return compare(record, filtered, (found) => found.some(matches));
}

function compare(
  record: ExpectedRecord,
  answer: DnsAnswer<string>,
  isOk: (found: string[]) => boolean,
): DnsMappingRecord {
  const base = {
    purpose: record.purpose,
    host: record.host,
    type: record.type,
    value: record.value,
    valueStrings: record.type === 'TXT' ? txtStrings(record.value) : [record.value],
    fix: null,
  };
  if (answer.status === 'failed') {
    return { ...base, status: 'lookup_failed', found: [], problem: `The lookup failed: ${answer.message}` };
  }
  const found = answer.status === 'found' ? answer.records : [];
  if (found.length === 0) return { ...base, status: 'missing', found, problem: null };
  return { ...base, status: isOk(found) ? 'ok' : 'different', found, problem: null };
}

/** TXT character-strings are at most 255 bytes each (RFC 1035 §3.3); resolvers join them back. */
export const TXT_STRING_MAX_BYTES = 255;

/** A TXT value cut into strings of at most 255 bytes, never inside a UTF-8 character. */
export function txtStrings(value: string): string[] {
  const strings: string[] = [];
  let current = '';
  let bytes = 0;
  for (const char of value) {
    const size = Buffer.byteLength(char);
    if (bytes + size > TXT_STRING_MAX_BYTES) {
      strings.push(current);
      current = '';
      bytes = 0;
    }
    current += char;
    bytes += size;
  }
  strings.push(current);
  return strings;
}

function mapAnswer<T>(answer: DnsAnswer<T>, map: (record: T) => string): DnsAnswer<string> {
  return answer.status === 'found' ? { status: 'found', records: answer.records.map(map) } : answer;
}

const hostName = (value: string) => value.trim().toLowerCase().replace(/\.$/, '');

/** The `include:<MAIL_HOST>` term of the expected SPF record, lower case. */
function spfInclude(expected: string): string {
  return expected
    .split(/\s+/)
    .find((term) => term.startsWith('include:'))!
    .toLowerCase();
}

/**
 * An SPF record that names our mail host through `include:` (other mechanisms may sit beside it).
 * Only a first reading: evaluateDomainSpf then judges the record as a receiver does.
 */
function spfIncludes(value: string, include: string): boolean {
  return value
    .toLowerCase()
    .split(/\s+/)
    .some((term) => term.replace(/^\+/, '') === include);
}

/** `k=v; k=v` records compare by tag, so spacing, order and extra tags (e.g. DMARC's pct) do not matter. */
function tagsMatch(value: string, expected: string): boolean {
  const found = parseTags(value);
  return [...parseTags(expected)].every(([tag, v]) => found.get(tag) === v);
}

function parseTags(value: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const tag = part.slice(0, eq).trim().toLowerCase();
    // Tag values may be folded with whitespace (long DKIM keys); compare them without it.
    const v = part.slice(eq + 1).replace(/\s+/g, '');
    tags.set(tag, tag === 'p' ? v : v.toLowerCase());
  }
  return tags;
}
