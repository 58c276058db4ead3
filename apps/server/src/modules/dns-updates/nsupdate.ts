import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DnsUpdateSettings } from '../../dns-update-config.ts';

export type RecordType = 'CNAME' | 'A' | 'AAAA' | 'TXT';

export interface DnsRecord {
  type: RecordType;
  /** A host name (CNAME), an address (A/AAAA) or the text (TXT, unquoted, any length). */
  value: string;
}

/** Replace every record of `types` at `name` by `records` (none: remove them). */
export interface RecordChange {
  name: string;
  types: RecordType[];
  records: DnsRecord[];
}

/** RFC 2136 §2.4 prerequisites: the server applies an update only when every one of them holds. */
export type Prerequisite =
  /** No record of any type at the name (§2.4.5, "name is not in use"): `prereq nxdomain`. */
  | { kind: 'name-unused' }
  /** The records of `type` at the name are exactly `values` (§2.4.2, value dependent). */
  | { kind: 'rrset-is'; type: RecordType; values: string[] };

/** One update of one name, applied whole or not at all: prerequisites, deletions, additions. */
export interface DnsUpdate {
  name: string;
  prerequisites?: Prerequisite[];
  /** Only these records are deleted; another value of the same type stays. */
  deleteRecords?: DnsRecord[];
  add?: DnsRecord[];
}

/** The server refused the update (a wrong key, a name outside the zone): retrying cannot help. */
export class DnsUpdateRefused extends Error {}

/** A prerequisite did not hold (RFC 2136 §2.2 YXDOMAIN, NXRRSET…): the server changed nothing. */
export class DnsPrerequisiteFailed extends Error {
  readonly rcode: string;
  constructor(rcode: string, message: string) {
    super(message);
    this.rcode = rcode;
  }
}

const NSUPDATE = process.env.NSUPDATE_PATH ?? 'nsupdate';
const RUN_LIMIT_MS = 30_000;
// Response codes of a refused update (RFC 2136 §2.2, RFC 8945 §5.3) as nsupdate prints them.
const REFUSAL = /\b(NOTAUTH|BADSIG|BADKEY|BADTIME|REFUSED|NOTZONE)\b/;
// A prerequisite that did not hold (§2.4), e.g. "update failed: YXDOMAIN".
const PREREQUISITE_FAILED = /\bupdate failed: (YXDOMAIN|NXDOMAIN|YXRRSET|NXRRSET)\b/;

/**
 * Sends one RFC 2136 update, signed with the TSIG key, through Debian's `nsupdate` over TCP (a
 * server that is down fails at once instead of after UDP retries). The key goes in a file only
 * this user can read, in a directory made for this run: never on a command line `ps` shows.
 */
export async function sendUpdate(settings: DnsUpdateSettings, update: DnsUpdate): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'atrium-nsupdate-'));
  try {
    const keyFile = path.join(dir, 'tsig.key');
    await writeFile(keyFile, keyStatement(settings), { mode: 0o600 });
    const output = await run(['-v', '-t', '10', '-k', keyFile], script(settings, update));
    if (output.code === 0) return;
    const said = output.text.trim().split('\n').filter(Boolean).join('; ') || `exit code ${output.code}`;
    const server = `${settings.host}:${settings.port}`;
    const refusal = REFUSAL.exec(said)?.[1];
    if (refusal) {
      throw new DnsUpdateRefused(
        `The DNS server ${server} refused the update of ${update.name} (${refusal}) signed with TSIG key ` +
          `"${settings.tsig.name}": check DNS_UPDATE_TSIG and the zone's allow-update. nsupdate said: ${said}`,
      );
    }
    const rcode = PREREQUISITE_FAILED.exec(said)?.[1];
    if (rcode) {
      throw new DnsPrerequisiteFailed(
        rcode,
        `The DNS server ${server} did not apply the update of ${update.name}: a prerequisite failed (${rcode})`,
      );
    }
    throw new Error(`The update of ${update.name} at the DNS server ${server} failed: ${said}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Why nsupdate cannot run here (not installed), for a warning at start; undefined when it can. */
export function nsupdateProblem(): string | undefined {
  const result = spawnSync(NSUPDATE, ['-V'], { stdio: 'ignore', timeout: 5000 });
  return result.error
    ? `nsupdate cannot run (${result.error.message}): install Debian's bind9-dnsutils or set NSUPDATE_PATH`
    : undefined;
}

function keyStatement({ tsig }: DnsUpdateSettings): string {
  return `key "${tsig.name}" {\n  algorithm ${tsig.algorithm};\n  secret "${tsig.secret}";\n};\n`;
}

/** The nsupdate commands of one message: prerequisites, deletions, additions, send. */
function script(settings: DnsUpdateSettings, update: DnsUpdate): string {
  const name = `${update.name}.`;
  const lines = [`server ${settings.host} ${settings.port}`, `zone ${settings.zone}.`];
  for (const prerequisite of update.prerequisites ?? []) {
    if (prerequisite.kind === 'name-unused') {
      lines.push(`prereq nxdomain ${name}`);
      continue;
    }
    // Several value-dependent lines of one type make the one RRset that must match exactly.
    for (const value of prerequisite.values) {
      lines.push(`prereq yxrrset ${name} ${prerequisite.type} ${rdata({ type: prerequisite.type, value })}`);
    }
  }
  for (const record of update.deleteRecords ?? []) {
    lines.push(`update delete ${name} ${record.type} ${rdata(record)}`);
  }
  for (const record of update.add ?? []) {
    lines.push(`update add ${name} ${settings.ttl} ${record.type} ${rdata(record)}`);
  }
  lines.push('send', '');
  return lines.join('\n');
}

function rdata(record: DnsRecord): string {
  if (record.type === 'CNAME') return `${record.value.replace(/\.$/, '')}.`;
  if (record.type !== 'TXT') return record.value;
  // One quoted character-string per 255 bytes (RFC 1035 §3.3.14), as long values need.
  const chunks = record.value.match(/.{1,255}/g) ?? [''];
  return chunks.map((chunk) => `"${chunk.replace(/["\\]/g, '\\$&')}"`).join(' ');
}

function run(args: string[], input: string): Promise<{ code: number; text: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NSUPDATE, args, { stdio: ['pipe', 'pipe', 'pipe'], timeout: RUN_LIMIT_MS });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(`nsupdate is not installed (Debian: apt-get install bind9-dnsutils): ${error.message}`)
          : error,
      ),
    );
    child.on('close', (code, signal) =>
      resolve({ code: code ?? 1, text: signal ? `${text}\nnsupdate stopped (${signal})` : text }),
    );
    child.stdin.end(input);
  });
}
