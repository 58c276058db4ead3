import { Resolver } from 'node:dns/promises';

/** Why a lookup gave no answer although the name may exist. */
export type DnsFailure = 'timeout' | 'server_failure' | 'refused' | 'other';

export type DnsAnswer<T> =
  | { status: 'found'; records: T[] }
  /** The name does not exist, or has no record of that type (NXDOMAIN / NODATA). */
  | { status: 'none' }
  | { status: 'failed'; failure: DnsFailure; message: string };

/** Whether a name exists at all, records of whatever type (or an empty non-terminal). */
export type NameAnswer =
  | { status: 'exists' }
  /** NXDOMAIN. */
  | { status: 'none' }
  | { status: 'failed'; failure: DnsFailure; message: string };

export interface MxRecord {
  exchange: string;
  priority: number;
}

export interface SrvRecord {
  priority: number;
  weight: number;
  port: number;
  name: string;
}

/** The lookups domain checks need; every one ends within the configured bound. */
export interface DnsClient {
  /** TXT values, each record's character-strings joined (long values come split at 255 bytes). */
  txt(name: string): Promise<DnsAnswer<string>>;
  mx(name: string): Promise<DnsAnswer<MxRecord>>;
  cname(name: string): Promise<DnsAnswer<string>>;
  srv(name: string): Promise<DnsAnswer<SrvRecord>>;
  a(name: string): Promise<DnsAnswer<string>>;
  aaaa(name: string): Promise<DnsAnswer<string>>;
  /** PTR names: SPF's `ptr` mechanism, which a domain's record may still use. */
  ptr(name: string): Promise<DnsAnswer<string>>;
  /**
   * NXDOMAIN or not. Asks for the CNAME, which no server follows: a dangling CNAME is a name in
   * use, and a name with records of other types answers NODATA, which is a name in use too.
   */
  nameExists(name: string): Promise<NameAnswer>;
}

export interface DnsSettings {
  /** `ip` or `ip:port` entries (DNS_SERVERS); empty means the system's resolvers. */
  dnsServers: string[];
  dnsTimeoutMs: number;
}

// c-ares retries with growing per-try timeouts, so the per-try timeout is a fraction of the
// budget and a hard deadline (Resolver#cancel) guarantees the bound whatever c-ares does.
const TRIES = 2;

export function createDnsClient(settings: DnsSettings): DnsClient {
  const lookup = <T>(run: (resolver: Resolver) => Promise<T[]>) =>
    withDeadline(settings, run).then(
      (records): DnsAnswer<T> => ({ status: 'found', records }),
      (error: unknown): DnsAnswer<T> => describeError(error, settings.dnsTimeoutMs),
    );
  return {
    txt: (name) => lookup((r) => r.resolveTxt(name).then((rows) => rows.map((chunks) => chunks.join('')))),
    mx: (name) => lookup((r) => r.resolveMx(name)),
    cname: (name) => lookup((r) => r.resolveCname(name)),
    srv: (name) => lookup((r) => r.resolveSrv(name)),
    a: (name) => lookup((r) => r.resolve4(name)),
    aaaa: (name) => lookup((r) => r.resolve6(name)),
    ptr: (name) => lookup((r) => r.resolvePtr(name)),
    nameExists: (name) =>
      withDeadline(settings, (r) => r.resolveCname(name)).then(
        (): NameAnswer => ({ status: 'exists' }),
        (error: unknown): NameAnswer => {
          const code = (error as { code?: string }).code;
          if (code === 'ENODATA') return { status: 'exists' };
          const answer = describeError(error, settings.dnsTimeoutMs);
          return answer.status === 'failed' ? answer : { status: 'none' };
        },
      ),
  };
}

async function withDeadline<T>(settings: DnsSettings, run: (resolver: Resolver) => Promise<T>): Promise<T> {
  // One resolver per lookup: cancel() aborts every query of a resolver, so sharing one
  // would let a slow name cancel its neighbours.
  const resolver = new Resolver({
    timeout: Math.max(50, Math.floor(settings.dnsTimeoutMs / 3)),
    tries: TRIES,
  });
  if (settings.dnsServers.length > 0) resolver.setServers(settings.dnsServers);
  const timer = setTimeout(() => resolver.cancel(), settings.dnsTimeoutMs);
  try {
    return await run(resolver);
  } finally {
    clearTimeout(timer);
  }
}

function describeError(error: unknown, timeoutMs: number): DnsAnswer<never> {
  const code = (error as { code?: string }).code ?? '';
  switch (code) {
    case 'ENOTFOUND':
    case 'ENODATA':
      return { status: 'none' };
    case 'ETIMEOUT':
    case 'ECANCELLED':
      return {
        status: 'failed',
        failure: 'timeout',
        message: `the DNS server did not answer within ${formatSeconds(timeoutMs)}`,
      };
    case 'ESERVFAIL':
      return {
        status: 'failed',
        failure: 'server_failure',
        message: 'the DNS server reported a server failure (SERVFAIL)',
      };
    case 'ECONNREFUSED':
      return { status: 'failed', failure: 'refused', message: 'the DNS server refused the connection' };
    case 'EREFUSED':
      return { status: 'failed', failure: 'refused', message: 'the DNS server refused the query' };
    default:
      return {
        status: 'failed',
        failure: 'other',
        message: `the DNS lookup failed (${code || (error as Error).message || 'unknown error'})`,
      };
  }
}

const formatSeconds = (ms: number) =>
  ms % 1000 === 0 ? `${ms / 1000} seconds` : `${(ms / 1000).toFixed(1)} seconds`;
