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

/** The server refused the update (a wrong key, a name outside the zone): retrying cannot help. */
export class DnsUpdateRefused extends Error {}

const NSUPDATE = process.env.NSUPDATE_PATH ?? 'nsupdate';
const RUN_LIMIT_MS = 30_000;
// Response codes of a refused update (RFC 2136 §2.2, RFC 8945 §5.3) as nsupdate prints them.
const REFUSAL = /\b(NOTAUTH|BADSIG|BADKEY|BADTIME|REFUSED|NOTZONE)\b/;

/**
 * Sends one RFC 2136 update, signed with the TSIG key, through Debian's `nsupdate` over TCP (a
 * server that is down fails at once instead of after UDP retries). The key goes in a file only
 * this user can read, in a directory made for this run: never on a command line `ps` shows.
 */
export async function sendUpdate(settings: DnsUpdateSettings, change: RecordChange): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'atrium-nsupdate-'));
  try {
    const keyFile = path.join(dir, 'tsig.key');
    await writeFile(keyFile, keyStatement(settings), { mode: 0o600 });
    const output = await run(['-v', '-t', '10', '-k', keyFile], script(settings, change));
    if (output.code === 0) return;
    const said = output.text.trim().split('\n').filter(Boolean).join('; ') || `exit code ${output.code}`;
    const server = `${settings.host}:${settings.port}`;
    const refusal = REFUSAL.exec(said)?.[1];
    if (refusal) {
      throw new DnsUpdateRefused(
        `The DNS server ${server} refused the update of ${change.name} (${refusal}) signed with TSIG key ` +
          `"${settings.tsig.name}": check DNS_UPDATE_TSIG and the zone's allow-update. nsupdate said: ${said}`,
      );
    }
    throw new Error(`The update of ${change.name} at the DNS server ${server} failed: ${said}`);
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

/** The nsupdate commands: delete the managed types at the name, add the wanted records, send. */
function script(settings: DnsUpdateSettings, change: RecordChange): string {
  const name = `${change.name}.`;
  const lines = [`server ${settings.host} ${settings.port}`, `zone ${settings.zone}.`];
  for (const type of change.types) lines.push(`update delete ${name} ${type}`);
  for (const record of change.records) {
    lines.push(`update add ${name} ${settings.ttl} ${record.type} ${rdata(record)}`);
  }
  lines.push('send', '');
  return lines.join('\n');
}

function rdata(record: DnsRecord): string {
  if (record.type === 'CNAME') return `${record.value.replace(/\.$/, '')}.`;
  if (record.type !== 'TXT') return record.value;
  // One quoted character-string per 255 bytes (RFC 1035 §3.3.14), as long DKIM keys need.
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
