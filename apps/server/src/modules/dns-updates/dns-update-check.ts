import type { DnsAnswer, DnsClient } from '../../lib/dns.ts';
import type { DnsRecord, RecordChange, RecordType } from './nsupdate.ts';

/**
 * Asks the updated server whether the name now holds what the change wanted, as the domain
 * checks ask: a mismatch or a failed lookup is returned as the problem (the job retries).
 * A CNAME answer is compared on its own: the A records the server adds when the target is in
 * its zone are the target's, not the name's.
 */
export async function changeProblem(dns: DnsClient, change: RecordChange): Promise<string | undefined> {
  const wantsCname = change.records.some((r) => r.type === 'CNAME');
  const types = wantsCname ? (['CNAME'] as RecordType[]) : change.types;
  const answers = await Promise.all(types.map((type) => lookup(dns, type, change.name)));
  for (const [i, type] of types.entries()) {
    const answer = answers[i]!;
    if (answer.status === 'failed') return `checking ${type} ${change.name}: ${answer.message}`;
    const expected = change.records.filter((r) => r.type === type).map((r) => normalise(type, r.value));
    const found = answer.status === 'found' ? answer.records.map((v) => normalise(type, v)) : [];
    if (!sameSet(expected, found)) {
      const shown = (values: string[]) => (values.length ? values.join(', ') : 'nothing');
      return `the DNS server answers ${shown(found)} for ${type} ${change.name}; expected ${shown(expected)}`;
    }
  }
  return undefined;
}

/** A record found at a name; MX is looked at too, to tell an operator's name from Atrium's. */
export interface FoundRecord {
  type: RecordType | 'MX';
  value: string;
}

/**
 * What the updated server holds at `name` among CNAME, A, AAAA, TXT and MX; a failed lookup
 * throws (the job retries). A CNAME is returned alone: the addresses a lookup of a CNAME'd name
 * answers are its target's, and nothing else can live beside a CNAME.
 */
export async function recordsAt(dns: DnsClient, name: string): Promise<FoundRecord[]> {
  const cname = await dns.cname(name);
  if (cname.status === 'failed') throw new Error(`checking CNAME ${name}: ${cname.message}`);
  if (cname.status === 'found') return cname.records.map((value) => ({ type: 'CNAME', value }));
  const types: RecordType[] = ['A', 'AAAA', 'TXT'];
  const [mx, ...answers] = await Promise.all([dns.mx(name), ...types.map((t) => lookup(dns, t, name))]);
  const found: FoundRecord[] = [];
  for (const [i, type] of types.entries()) {
    const answer = answers[i]!;
    if (answer.status === 'failed') throw new Error(`checking ${type} ${name}: ${answer.message}`);
    if (answer.status === 'found') found.push(...answer.records.map((value) => ({ type, value })));
  }
  if (mx!.status === 'failed') throw new Error(`checking MX ${name}: ${mx!.message}`);
  if (mx!.status === 'found') {
    found.push(...mx!.records.map((r) => ({ type: 'MX' as const, value: `${r.priority} ${r.exchange}` })));
  }
  return found;
}

/** Whether `found` is exactly `records`: nothing missing, nothing more (of the types looked at). */
export function holdsExactly(found: FoundRecord[], records: DnsRecord[]): boolean {
  const key = (r: FoundRecord) => `${r.type} ${r.type === 'MX' ? r.value : normalise(r.type, r.value)}`;
  return sameSet(found.map(key), records.map(key));
}

/** `A 192.0.2.80, TXT "…"`, for messages. */
export function describeRecords(found: FoundRecord[]): string {
  return found.map((r) => `${r.type} ${r.type === 'TXT' ? JSON.stringify(r.value) : r.value}`).join(', ');
}

function lookup(dns: DnsClient, type: RecordType, name: string): Promise<DnsAnswer<string>> {
  if (type === 'CNAME') return dns.cname(name);
  if (type === 'A') return dns.a(name);
  if (type === 'AAAA') return dns.aaaa(name);
  return dns.txt(name);
}

function normalise(type: RecordType, value: string): string {
  return type === 'TXT' ? value : value.toLowerCase().replace(/\.$/, '');
}

function sameSet(a: string[], b: string[]): boolean {
  const left = new Set(a);
  return left.size === new Set(b).size && b.every((v) => left.has(v));
}
