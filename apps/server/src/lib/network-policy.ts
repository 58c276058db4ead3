import { lookup as dnsLookup } from 'node:dns/promises';
import { isIPv6 } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Which addresses Atrium may connect to when an admin names the server (a mail migration's old
 * provider, an app's back-channel logout URI): never its own host or network unless the operator
 * allows private networks, and never addresses that no real server has (documentation,
 * benchmarking, multicast, reserved). One policy for every outgoing connection an admin can aim.
 *
 * Every IPv4 spelling a resolver accepts (`127.1`, `0x7f000001`, `2130706433`, `0177.0.0.1`) is
 * parsed here, and every IPv6 form that carries an IPv4 address (mapped, translated, compatible,
 * NAT64, 6to4) is judged as the IPv4 address it carries. A name is resolved once, every address
 * it resolves to is judged, and the caller connects to the address judged (no second lookup).
 */

export interface AddressPolicy {
  /**
   * Loopback, private (RFC 1918, unique local), shared (CGNAT) and this host's own addresses are
   * allowed: the operator's setting for servers on Atrium's host or network (and tests).
   */
  allowPrivate: boolean;
  /** This host's addresses; defaults to os.networkInterfaces() at each check. */
  hostAddresses?: () => Iterable<string>;
}

/** Why an address is refused, as a phrase: "a loopback address". */
export type Refusal =
  | 'loopback'
  | 'this-host'
  | 'private'
  | 'shared'
  | 'unspecified'
  | 'link-local'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved';

const PHRASES: Record<Refusal, string> = {
  loopback: 'a loopback address',
  'this-host': 'an address of this server',
  private: 'a private network address',
  shared: 'a shared (carrier-grade NAT) address',
  unspecified: 'an unspecified address',
  'link-local': 'a link-local address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  documentation: 'a documentation address (reserved for examples)',
  benchmarking: 'a benchmarking address',
  reserved: 'a reserved address',
};

/** Refusals the operator's private-network setting lifts; the others hold always. */
const PRIVATE_KINDS = new Set<Refusal>(['loopback', 'this-host', 'private', 'shared']);

export type ParsedAddress = { family: 4; value: number } | { family: 6; value: bigint };

/** One part of an inet_aton address: decimal, octal (leading 0) or hex (0x). */
function ipv4Part(text: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(text)) return text.length === 2 ? 0 : parseInt(text.slice(2), 16);
  if (/^0[0-7]*$/.test(text)) return parseInt(text, 8);
  if (/^[1-9][0-9]*$/.test(text)) return Number(text);
  return null;
}

/**
 * An IPv4 address in any form resolvers and URL parsers accept (inet_aton): `a.b.c.d`, `a.b.c`,
 * `a.b`, `a`, each part decimal, octal or hex, the last part filling the remaining bytes.
 */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return null;
  const numbers = parts.map(ipv4Part);
  if (numbers.some((n) => n === null || !Number.isFinite(n))) return null;
  const values = numbers as number[];
  const last = values.pop()!;
  if (values.some((n) => n > 255) || last >= 256 ** (4 - values.length)) return null;
  let result = 0;
  for (const [i, n] of values.entries()) result += n * 256 ** (3 - i);
  return result + last;
}

/** A textual IPv6 address (zone and brackets allowed) as a 128-bit number. */
export function parseIPv6(text: string): bigint | null {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!isIPv6(bare)) return null;
  let groups = bare.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(groups);
  if (dotted) {
    const v4 = parseIPv4(dotted[1]!)!;
    groups = `${groups.slice(0, -dotted[1]!.length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, tail] = groups.includes('::') ? groups.split('::') : [groups, undefined];
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  const all = [...left, ...middle, ...right];
  if (all.length !== 8) return null;
  return all.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/**
 * An address as typed by an admin or returned by a resolver: any IPv4 form, or IPv6 (bracketed
 * or not). A host name gives null.
 */
export function parseAddress(text: string): ParsedAddress | null {
  const v6 = text.includes(':') ? parseIPv6(text) : null;
  if (v6 !== null) return { family: 6, value: v6 };
  const v4 = /^[0-9a-fx.]+$/i.test(text) ? parseIPv4(text) : null;
  return v4 === null ? null : { family: 4, value: v4 };
}

export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.');
}

/** The form to connect to: dotted IPv4, or the IPv6 address as given (without brackets or zone). */
function connectForm(text: string, parsed: ParsedAddress): string {
  return parsed.family === 4 ? formatIPv4(parsed.value) : text.replace(/^\[(.*)\]$/, '$1');
}

type V4Range = [start: string, prefix: number, kind: Refusal];
const V4_RANGES: Array<[number, number, Refusal]> = (
  [
    ['0.0.0.0', 8, 'unspecified'],
    ['10.0.0.0', 8, 'private'],
    ['100.64.0.0', 10, 'shared'],
    ['127.0.0.0', 8, 'loopback'],
    ['169.254.0.0', 16, 'link-local'],
    ['172.16.0.0', 12, 'private'],
    ['192.0.0.0', 24, 'reserved'],
    ['192.0.2.0', 24, 'documentation'],
    ['192.88.99.0', 24, 'reserved'],
    ['192.168.0.0', 16, 'private'],
    ['198.18.0.0', 15, 'benchmarking'],
    ['198.51.100.0', 24, 'documentation'],
    ['203.0.113.0', 24, 'documentation'],
    ['224.0.0.0', 4, 'multicast'],
    ['255.255.255.255', 32, 'broadcast'],
    ['240.0.0.0', 4, 'reserved'],
  ] satisfies V4Range[]
).map(([start, prefix, kind]) => [parseIPv4(start)!, prefix, kind]);

function ipv4Kind(value: number): Refusal | null {
  for (const [start, prefix, kind] of V4_RANGES) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    if ((value & mask) >>> 0 === start) return kind;
  }
  return null;
}

const inV6 = (value: bigint, start: string, prefix: number) =>
  value >> BigInt(128 - prefix) === parseIPv6(start)! >> BigInt(128 - prefix);

/**
 * The IPv4 address an IPv6 address carries, where the form is one that reaches it: mapped
 * (::ffff:0:0/96), translated (::ffff:0:0:0/96), compatible (::/96), NAT64 (64:ff9b::/96),
 * 6to4 (2002::/16).
 */
export function embeddedIPv4(value: bigint): number | null {
  const low32 = Number(value & 0xffffffffn);
  if (inV6(value, '::ffff:0:0', 96) || inV6(value, '::ffff:0:0:0', 96)) return low32;
  if (inV6(value, '::', 96) && value > 1n) return low32;
  if (inV6(value, '64:ff9b::', 96)) return low32;
  if (inV6(value, '2002::', 16)) return Number((value >> 80n) & 0xffffffffn);
  return null;
}

function ipv6Kind(value: bigint): Refusal | null {
  if (value === 0n) return 'unspecified';
  if (value === 1n) return 'loopback';
  // Local-use NAT64 (RFC 8215): where the IPv4 address sits depends on the local prefix length.
  if (inV6(value, '64:ff9b:1::', 48)) return 'reserved';
  if (inV6(value, 'fc00::', 7) || inV6(value, 'fec0::', 10)) return 'private';
  if (inV6(value, 'fe80::', 10)) return 'link-local';
  if (inV6(value, 'ff00::', 8)) return 'multicast';
  if (inV6(value, '2001:db8::', 32) || inV6(value, '3fff::', 20)) return 'documentation';
  if (inV6(value, '2001:2::', 48)) return 'benchmarking';
  // IETF protocol assignments, Teredo (2001::/32, whose client address is obfuscated) among them.
  if (inV6(value, '2001::', 23)) return 'reserved';
  // Beyond the above, only global unicast (2000::/3) reaches a server.
  if (!inV6(value, '2000::', 3)) return 'reserved';
  return null;
}

function defaultHostAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** The addresses of this host, as IPv4 numbers and IPv6 numbers. */
function hostSets(policy: AddressPolicy) {
  const v4 = new Set<number>();
  const v6 = new Set<bigint>();
  for (const address of (policy.hostAddresses ?? defaultHostAddresses)()) {
    const parsed = parseAddress(address);
    if (parsed?.family === 4) v4.add(parsed.value);
    else if (parsed?.family === 6) {
      const inner = embeddedIPv4(parsed.value);
      if (inner !== null) v4.add(inner);
      else v6.add(parsed.value);
    }
  }
  return { v4, v6 };
}

export interface Judgement {
  kind: Refusal;
  /** The IPv4 address an IPv6 form carries, when that is what was judged. */
  embedded?: string;
}

/** Why `address` (already parsed) is refused under `policy`, or null when it may be connected to. */
export function judgeAddress(parsed: ParsedAddress, policy: AddressPolicy): Judgement | null {
  let v4: number | null = parsed.family === 4 ? parsed.value : null;
  let embedded: string | undefined;
  let kind: Refusal | null = null;
  if (parsed.family === 6) {
    const inner = embeddedIPv4(parsed.value);
    if (inner !== null) {
      v4 = inner;
      embedded = formatIPv4(inner);
    } else kind = ipv6Kind(parsed.value);
  }
  if (v4 !== null) kind = ipv4Kind(v4);
  // An address of one of this host's interfaces reaches Atrium's host, whatever its range says
  // (it may be public, or even a documentation address on a test network).
  if (kind !== 'loopback') {
    const own = hostSets(policy);
    if (v4 !== null ? own.v4.has(v4) : own.v6.has(parsed.value as bigint)) kind = 'this-host';
  }
  if (kind === null || (policy.allowPrivate && PRIVATE_KINDS.has(kind))) return null;
  return embedded ? { kind, embedded } : { kind };
}

/** The failures of `resolveAllowed`; `message` is a sentence for the admin. */
export class NetworkPolicyError extends Error {}

export class HostNotFound extends NetworkPolicyError {
  readonly host: string;
  constructor(host: string) {
    super(`${host} was not found`);
    this.host = host;
  }
}

export class AddressRefused extends NetworkPolicyError {
  readonly host: string;
  /** The address refused, as connected to (dotted IPv4, or IPv6). */
  readonly address: string;
  readonly judgement: Judgement;
  constructor(host: string, address: string, judgement: Judgement) {
    super(`${host} ${describeRefusal(host, address, judgement)}`);
    this.host = host;
    this.address = address;
    this.judgement = judgement;
  }

  /** Whether the operator's private-network setting would allow it. */
  get privateNetwork(): boolean {
    return PRIVATE_KINDS.has(this.judgement.kind);
  }
}

/**
 * The end of a sentence that begins with the host: "is a loopback address", "is 127.0.0.1, a
 * loopback address" (127.1), "carries 192.0.2.2, a documentation address" (an IPv6 form),
 * "resolves to ::1, a loopback address" (a name).
 */
export function describeRefusal(host: string, address: string, judgement: Judgement): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const phrase = PHRASES[judgement.kind];
  const carries = judgement.embedded ? `carries ${judgement.embedded}, ${phrase}` : undefined;
  if (parseAddress(bare) === null) {
    return `resolves to ${address}, ${carries ? `which ${carries}` : phrase}`;
  }
  if (carries) return carries;
  return bare === address ? `is ${phrase}` : `is ${address}, ${phrase}`;
}

export interface Resolved {
  address: string;
  family: 4 | 6;
}

/** The first address to connect to, and every address checked (to try in turn, as a resolver's answer). */
export type ResolvedAll = Resolved & { all: Resolved[] };

type Lookup = (host: string) => Promise<Array<{ address: string; family: number }>>;
const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * The address to connect to for `host` (a name, any IPv4 form, or IPv6 with or without
 * brackets): an address literal is judged as it is; a name is resolved once, every address it
 * resolves to must pass (a name with one bad address is refused), and the first is returned for
 * the caller to connect to (pinned: no second lookup that could answer differently).
 */
export async function resolveAllowed(
  host: string,
  policy: AddressPolicy,
  lookup: Lookup = systemLookup,
): Promise<ResolvedAll> {
  const literal = parseAddress(host);
  let candidates: Array<{ text: string; parsed: ParsedAddress }>;
  if (literal) {
    candidates = [{ text: connectForm(host, literal), parsed: literal }];
  } else {
    let found: Array<{ address: string; family: number }>;
    try {
      found = await lookup(host);
    } catch {
      throw new HostNotFound(host);
    }
    candidates = found.flatMap(({ address }) => {
      const parsed = parseAddress(address);
      return parsed ? [{ text: connectForm(address, parsed), parsed }] : [];
    });
    if (candidates.length === 0) throw new HostNotFound(host);
  }
  for (const { text, parsed } of candidates) {
    const judgement = judgeAddress(parsed, policy);
    if (judgement) throw new AddressRefused(host, text, judgement);
  }
  const all = candidates.map(({ text, parsed }) => ({ address: text, family: parsed.family }));
  return { ...all[0]!, all };
}

const LOOPBACK_NAME = /^(localhost|.+\.localhost)\.?$/i;

/**
 * The refusal of `host` that needs no lookup: an address literal in any form, or a name that is
 * loopback by definition (localhost, *.localhost). Other names are judged when resolved.
 */
export function refusedWithoutLookup(host: string, policy: AddressPolicy): AddressRefused | null {
  const literal = parseAddress(host);
  const parsed = literal ?? (LOOPBACK_NAME.test(host) ? parseAddress('127.0.0.1') : null);
  if (!parsed) return null;
  const judgement = judgeAddress(parsed, policy);
  const address = literal ? connectForm(host, literal) : '127.0.0.1';
  return judgement ? new AddressRefused(host, address, judgement) : null;
}

/** The AddressRefused behind a failed request (fetch wraps it as the cause of its TypeError). */
export function addressRefusedIn(error: unknown): AddressRefused | null {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AddressRefused) return e;
  }
  return null;
}

type LookupCallback = (
  error: Error | null,
  address?: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

/**
 * An undici dispatcher (fetch's `dispatcher` option) that connects only where the policy allows:
 * every name is resolved and judged by `resolveAllowed` when the connection is made, and the
 * socket goes to the addresses judged (no other lookup). Address literals are not looked up, so check them (and get
 * a clear error before any connection) with `resolveAllowed` before the request.
 */
export function guardedDispatcher(policy: AddressPolicy): object {
  // Node's fetch is undici; its Agent class is that of the global dispatcher (loaded with fetch).
  void Response;
  const slots = globalThis as unknown as Record<symbol, { constructor: unknown } | undefined>;
  const global =
    slots[Symbol.for('undici.globalDispatcher.2')] ?? slots[Symbol.for('undici.globalDispatcher.1')];
  const Agent = global?.constructor as (new (options: object) => object) | undefined;
  if (!Agent || Agent.name !== 'Agent') throw new Error('fetch’s undici Agent is not available');
  return new Agent({
    connect: {
      lookup(hostname: string, options: { all?: boolean }, callback: LookupCallback) {
        resolveAllowed(hostname, policy).then(
          ({ address, family, all }) => (options.all ? callback(null, all) : callback(null, address, family)),
          (error: Error) => callback(error),
        );
      },
    },
  });
}
