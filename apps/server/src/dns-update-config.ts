import { isIP } from 'node:net';

/** The TSIG algorithms BIND, Knot and PowerDNS all accept (RFC 8945 §6). */
export const TSIG_ALGORITHMS = [
  'hmac-sha256',
  'hmac-sha384',
  'hmac-sha512',
  'hmac-sha224',
  'hmac-sha1',
] as const;
export type TsigAlgorithm = (typeof TSIG_ALGORITHMS)[number];

export interface TsigKey {
  algorithm: TsigAlgorithm;
  name: string;
  /** Base64, as the server's key statement has it. */
  secret: string;
}

/** What the site record of an organisation points at: a host name, or addresses. */
export type SiteRecordTarget = { cname: string } | { ipv4: string[]; ipv6: string[] };

/** RFC 2136 updates of the operator's zone; absent when DNS_UPDATE_SERVER is not set. */
export interface DnsUpdateSettings {
  /** An IP address (the answer is checked by querying it directly). */
  host: string;
  port: number;
  zone: string;
  tsig: TsigKey;
  target: SiteRecordTarget;
  ttl: number;
}

export interface DnsUpdateEnv {
  DNS_UPDATE_SERVER?: string | undefined;
  DNS_UPDATE_ZONE?: string | undefined;
  DNS_UPDATE_TSIG?: string | undefined;
  DNS_UPDATE_TARGET?: string | undefined;
  DNS_UPDATE_TTL?: string | undefined;
}

/** A bad setting: its name and what is wrong (config.ts turns it into a ConfigError). */
export interface SettingProblem {
  setting: keyof DnsUpdateEnv;
  problem: string;
}

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function parseDnsUpdateSettings(
  env: DnsUpdateEnv,
  siteBaseDomain: string,
): DnsUpdateSettings | undefined | SettingProblem {
  const { DNS_UPDATE_SERVER: server, DNS_UPDATE_ZONE: zone, DNS_UPDATE_TSIG: tsig } = env;
  if (!server) {
    const stray = (['DNS_UPDATE_ZONE', 'DNS_UPDATE_TSIG', 'DNS_UPDATE_TARGET'] as const).find((k) => env[k]);
    return stray ? { setting: 'DNS_UPDATE_SERVER', problem: `required when ${stray} is set` } : undefined;
  }
  const address = serverAddress(server);
  if (!address) {
    return {
      setting: 'DNS_UPDATE_SERVER',
      problem: `"${server}" is not an ip or ip:port (e.g. 192.0.2.53:53)`,
    };
  }
  if (!zone) return { setting: 'DNS_UPDATE_ZONE', problem: 'required with DNS_UPDATE_SERVER' };
  const zoneName = zone.trim().toLowerCase().replace(/\.$/, '');
  if (!HOST_NAME.test(zoneName))
    return { setting: 'DNS_UPDATE_ZONE', problem: `"${zone}" is not a domain name` };
  if (siteBaseDomain !== zoneName && !siteBaseDomain.endsWith(`.${zoneName}`)) {
    return {
      setting: 'DNS_UPDATE_ZONE',
      problem: `the zone ${zoneName} does not contain SITE_BASE_DOMAIN (${siteBaseDomain})`,
    };
  }
  if (!tsig) return { setting: 'DNS_UPDATE_TSIG', problem: 'required with DNS_UPDATE_SERVER' };
  const key = tsigKey(tsig);
  if (typeof key === 'string') return { setting: 'DNS_UPDATE_TSIG', problem: key };
  const target = siteRecordTarget(env.DNS_UPDATE_TARGET);
  if (typeof target === 'string') return { setting: 'DNS_UPDATE_TARGET', problem: target };
  const ttl = Number(env.DNS_UPDATE_TTL ?? '300');
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > 86_400) {
    return { setting: 'DNS_UPDATE_TTL', problem: 'expected a whole number of seconds from 1 to 86400' };
  }
  return { ...address, zone: zoneName, tsig: key, target, ttl };
}

function serverAddress(value: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-f:]+)\]|([0-9.]+))(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!match) return undefined;
  const host = match[1] ?? match[2]!;
  const port = Number(match[3] ?? '53');
  if (!isIP(host) || port < 1 || port > 65535) return undefined;
  return { host, port };
}

/** `algorithm:name:base64secret`, as `tsig-keygen` prints them (the secret may contain no colon). */
function tsigKey(value: string): TsigKey | string {
  const shape = 'expected algorithm:key-name:base64-secret (e.g. hmac-sha256:atrium:…)';
  const parts = value.trim().split(':');
  if (parts.length !== 3) return shape;
  const [algorithm = '', name = '', secret = ''] = parts;
  if (!(TSIG_ALGORITHMS as readonly string[]).includes(algorithm.toLowerCase())) {
    return `unknown algorithm "${algorithm}"; expected one of ${TSIG_ALGORITHMS.join(', ')}`;
  }
  if (!HOST_NAME.test(name.replace(/\.$/, ''))) return `"${name}" is not a key name`;
  if (!BASE64.test(secret) || secret.length % 4 !== 0 || Buffer.from(secret, 'base64').length < 16) {
    return 'the secret is not base64 of at least 16 bytes';
  }
  return { algorithm: algorithm.toLowerCase() as TsigAlgorithm, name: name.replace(/\.$/, ''), secret };
}

/** A host name (CNAME) or comma-separated IPv4/IPv6 addresses (A/AAAA). */
function siteRecordTarget(value: string | undefined): SiteRecordTarget | string {
  if (!value) return 'required with DNS_UPDATE_SERVER: a host name (CNAME) or IP addresses (A/AAAA)';
  const entries = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (entries.length > 0 && entries.every((e) => isIP(e))) {
    return { ipv4: entries.filter((e) => isIP(e) === 4), ipv6: entries.filter((e) => isIP(e) === 6) };
  }
  const host = entries.length === 1 ? entries[0]!.toLowerCase().replace(/\.$/, '') : '';
  if (!HOST_NAME.test(host)) return `"${value}" is neither a host name nor a list of IP addresses`;
  return { cname: host };
}
