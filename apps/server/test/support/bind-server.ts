import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const NAMED = process.env.NAMED_PATH ?? '/usr/sbin/named';
const KEY_NAME = 'atrium-test-key';

/**
 * Debian's BIND (`named`) on a loopback port, primary for one zone that accepts RFC 2136
 * updates signed with a TSIG key made for the test. Its own config and zone in a temporary
 * directory; the system's named and /etc/bind are never touched.
 */
export class TestBindServer {
  readonly zone: string;
  readonly dir: string;
  readonly secret = randomBytes(32).toString('base64');
  port = 0;
  private child: ChildProcess | undefined;
  private readonly records: string[];

  private constructor(zone: string, records: string[]) {
    this.zone = zone;
    this.records = records;
    this.dir = mkdtempSync(path.join(tmpdir(), 'atrium-bind-'));
  }

  /** `records`: the operator's own lines of the zone file (`proxy IN A 192.0.2.80`). */
  static async start(zone: string, records: string[] = []): Promise<TestBindServer> {
    const check = spawnSync(NAMED, ['-v'], { encoding: 'utf8' });
    if (check.error) {
      throw new Error(
        `These tests need BIND's named at ${NAMED} (Debian: apt-get install bind9 bind9-dnsutils; ` +
          `or set NAMED_PATH): ${check.error.message}`,
      );
    }
    const server = new TestBindServer(zone, records);
    server.writeFiles();
    // A free port for UDP and TCP both; another process may take it before named binds: try again.
    for (let attempt = 1; ; attempt++) {
      server.port = await freeUdpAndTcpPort();
      try {
        await server.resume();
        return server;
      } catch (error) {
        if (attempt >= 10) throw error;
      }
    }
  }

  /** The DNS_UPDATE_* settings that point Atrium at this server. */
  env(overrides: { secret?: string } = {}): Record<string, string> {
    return {
      DNS_UPDATE_SERVER: `127.0.0.1:${this.port}`,
      DNS_UPDATE_ZONE: this.zone,
      DNS_UPDATE_TSIG: `hmac-sha256:${KEY_NAME}:${overrides.secret ?? this.secret}`,
    };
  }

  /**
   * The operator changing their zone by hand: nsupdate `update …` lines (names relative to the
   * zone are not expanded: write them whole), signed with the zone's key.
   */
  update(lines: string[]): void {
    const keyFile = path.join(this.dir, 'operator.key');
    writeFileSync(keyFile, `key "${KEY_NAME}" { algorithm hmac-sha256; secret "${this.secret}"; };\n`);
    const script = [`server 127.0.0.1 ${this.port}`, `zone ${this.zone}.`, ...lines, 'send', ''].join('\n');
    const result = spawnSync('nsupdate', ['-k', keyFile], {
      input: script,
      encoding: 'utf8',
      timeout: 10_000,
    });
    if (result.status !== 0) throw new Error(`nsupdate failed: ${result.stderr || result.error?.message}`);
  }

  /** Starts named again on the same port, with the zone as updates left it (its journal). */
  async resume(): Promise<void> {
    const child = spawn(NAMED, ['-g', '-c', path.join(this.dir, 'named.conf'), '-p', String(this.port)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('running')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`named exited (${code}) on port ${this.port}:\n${log}`)));
      child.once('error', reject);
    });
    await this.untilZoneAnswers();
  }

  /**
   * named says "running" once it listens; on a loaded machine the zone (replayed from its journal)
   * can still answer SERVFAIL for a moment after that. Ready is when the zone's SOA answers.
   */
  private async untilZoneAnswers(): Promise<void> {
    const resolver = new Resolver({ timeout: 1_000, tries: 1 });
    resolver.setServers([`127.0.0.1:${this.port}`]);
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await resolver.resolveSoa(this.zone);
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`named on port ${this.port} never served ${this.zone}: ${error}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** Stops named and waits until it is gone (the port no longer answers). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private writeFiles(): void {
    const dir = this.dir;
    writeFileSync(
      path.join(dir, 'named.conf'),
      `options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  listen-on { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  allow-query { any; };
};
controls { };
key "${KEY_NAME}" { algorithm hmac-sha256; secret "${this.secret}"; };
zone "${this.zone}" {
  type primary;
  file "${dir}/zone.db";
  allow-update { key "${KEY_NAME}"; };
};
`,
    );
    writeFileSync(
      path.join(dir, 'zone.db'),
      `$TTL 300
@ IN SOA ns.${this.zone}. hostmaster.${this.zone}. 1 3600 600 86400 300
@ IN NS ns.${this.zone}.
ns IN A 127.0.0.1
${this.records.join('\n')}
`,
    );
  }
}

async function freeUdpAndTcpPort(): Promise<number> {
  for (;;) {
    const udp = createSocket('udp4');
    const port = await new Promise<number>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, '127.0.0.1', () => resolve(udp.address().port));
    });
    const tcpFree = await new Promise<boolean>((resolve) => {
      const tcp = createServer();
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => tcp.close(() => resolve(true)));
    });
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (tcpFree) return port;
  }
}
