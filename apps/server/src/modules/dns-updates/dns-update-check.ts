import type { DnsAnswer, DnsClient } from '../../lib/dns.ts';
import type { RecordChange, RecordType } from './nsupdate.ts';

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
