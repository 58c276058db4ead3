import { spf } from 'mailauth/lib/spf/index.js';
import type { DnsAnswer, DnsClient, DnsFailure } from '../../lib/dns.ts';

/** RFC 7208 §2.6's results, as a receiver's check gives them. */
export type SpfResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror';

export interface SpfEvaluation {
  result: SpfResult;
  /** The evaluator's words: which record, which lookup, what went wrong. */
  comment: string;
}

/**
 * RFC 7208 §4.6.4 asks evaluators to allow at least 20 seconds; each lookup is bounded by
 * DNS_TIMEOUT_MS anyway, this bounds a chain of includes.
 */
const SPF_TIME_LIMIT_MS = 20_000;

/**
 * check_host() for mail from `ip` with MAIL FROM `postmaster@<domain>`, HELO `helo`: what a
 * receiver concludes. mailauth's evaluator does the work (the lookup limits, includes, macros);
 * its lookups go through Atrium's DNS client, so DNS_SERVERS and DNS_TIMEOUT_MS apply as they do
 * to every other check.
 */
export async function evaluateSpf(
  dns: DnsClient,
  check: { domain: string; ip: string; helo: string },
): Promise<SpfEvaluation> {
  const answer = await spf({
    sender: `postmaster@${check.domain}`,
    ip: check.ip,
    helo: check.helo,
    // Only named in the evaluator's comments, which say "<mta>: domain of … designates …".
    mta: 'atrium',
    resolver: spfResolver(dns) as Parameters<typeof spf>[0]['resolver'],
    maxElapsedTime: SPF_TIME_LIMIT_MS,
  });
  return { result: answer.status.result as SpfResult, comment: answer.status.comment ?? '' };
}

/** The error codes node:dns gives, which mailauth reads to tell void lookups from failures. */
const ERROR_CODE: Record<DnsFailure, string> = {
  timeout: 'ETIMEOUT',
  refused: 'EREFUSED',
  server_failure: 'ESERVFAIL',
  other: 'EOTHER',
};

/** mailauth's resolver contract (that of `dns.promises.resolve`), answered by the DNS client. */
export function spfResolver(dns: DnsClient) {
  return async (name: string, type: string): Promise<unknown[]> => {
    const answer = await lookup(dns, name, type);
    if (answer.status === 'found') return answer.records;
    const error = new Error(
      answer.status === 'none' ? `${name} has no ${type} record` : answer.message,
    ) as Error & { code: string };
    // ENODATA: a void lookup (no such name or no such record), which SPF counts but survives.
    error.code = answer.status === 'none' ? 'ENODATA' : ERROR_CODE[answer.failure];
    throw error;
  };
}

function lookup(dns: DnsClient, name: string, type: string): Promise<DnsAnswer<unknown>> {
  switch (type) {
    case 'TXT':
      // node:dns answers each TXT record as its character-strings; the client has joined them.
      return dns
        .txt(name)
        .then((a) => (a.status === 'found' ? { ...a, records: a.records.map((v) => [v]) } : a));
    case 'A':
      return dns.a(name);
    case 'AAAA':
      return dns.aaaa(name);
    case 'MX':
      return dns.mx(name);
    case 'PTR':
      return dns.ptr(name);
    default:
      return Promise.resolve({ status: 'failed', failure: 'other', message: `no ${type} lookups for SPF` });
  }
}
