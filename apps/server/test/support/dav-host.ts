import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { caddyfile } from '../../src/operator/install/caddyfile.ts';
import { davCaddyRoutes, radicaleConfig, radicaleRights } from '../../src/operator/install/dav-files.ts';
import { accepts, stopChildren, uidOf } from './daemons.ts';
import { freePort } from './free-port.ts';

/**
 * Debian's Radicale behind Debian's Caddy, configured by operator/install/dav-files.ts and
 * caddyfile.ts as install writes them, under a temporary root: Radicale runs as the package's
 * radicale user on a loopback port with its storage owned by that user; Caddy serves MAIL_HOST, `localhost` here, the only name
 * that resolves to loopback without touching /etc/hosts. Needs root, radicale and caddy.
 */
export class TestDavHost {
  readonly root = mkdtempSync(path.join(tmpdir(), 'atrium-dav-host-'));
  readonly storage = path.join(this.root, 'collections');
  radicalePort = 0;
  httpsPort = 0;
  private children: ChildProcess[] = [];
  private output = '';

  /** Picks the ports: Atrium's settings name Radicale's before Atrium starts. */
  static async prepare(): Promise<TestDavHost> {
    const host = new TestDavHost();
    host.radicalePort = await freePort();
    host.httpsPort = await freePort();
    return host;
  }

  get radicaleAddress(): string {
    return `127.0.0.1:${this.radicalePort}`;
  }

  /** The test's self-signed certificate for MAIL_HOST, which clients are told to trust. */
  get caCertificate(): string {
    return path.join(this.root, 'tls.crt');
  }

  davUrl(mailHost: string): string {
    return `https://${mailHost}:${this.httpsPort}/dav/`;
  }

  /** The host alone, for clients that find the DAV server through /.well-known (RFC 6764). */
  hostUrl(mailHost: string): string {
    return `https://${mailHost}:${this.httpsPort}/`;
  }

  async start(options: { mailHost: string; atriumPort: number }): Promise<void> {
    const radicale = uidOf('radicale');
    chmodSync(this.root, 0o711);
    mkdirSync(this.storage, { mode: 0o750 });
    chownSync(this.storage, radicale.uid, radicale.gid);
    const config = path.join(this.root, 'radicale.conf');
    const rightsFile = path.join(this.root, 'radicale.rights');
    writeFileSync(rightsFile, radicaleRights(), { mode: 0o644 });
    writeFileSync(config, radicaleConfig({ port: this.radicalePort, storage: this.storage, rightsFile }), {
      mode: 0o644,
    });
    this.spawn('/usr/bin/radicale', ['--config', config], { uid: radicale.uid, gid: radicale.gid });

    // A certificate of the test's own (install's --tls-cert/--tls-key): Python's TLS, vdirsyncer's,
    // saw Caddy's on-demand internal one fail the handshake for `localhost`.
    const cert = spawnSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${options.mailHost}`,
      '-addext',
      `subjectAltName=DNS:${options.mailHost},IP:127.0.0.1`,
      '-keyout',
      path.join(this.root, 'tls.key'),
      '-out',
      this.caCertificate,
    ]);
    if (cert.status !== 0) throw new Error(`openssl: ${cert.stderr.toString()}`);
    const written = caddyfile({
      publicHost: '127.0.0.1',
      atriumPort: options.atriumPort,
      tls: { cert: this.caCertificate, key: path.join(this.root, 'tls.key') },
      adminOff: true,
      httpPort: await freePort(),
      httpsPort: this.httpsPort,
      davRoutes: davCaddyRoutes({
        mailHost: options.mailHost,
        atriumPort: options.atriumPort,
        radicalePort: this.radicalePort,
      }),
    });
    // A test's Caddy keeps its certificates here and leaves the system's trust store alone.
    const file = path.join(this.root, 'Caddyfile');
    writeFileSync(
      file,
      written.replace(
        '{\n',
        `{\n\tskip_install_trust\n\tauto_https disable_redirects\n\tstorage file_system ${this.root}/caddy/caddy\n`,
      ),
    );
    this.spawn('/usr/bin/caddy', ['run', '--config', file, '--adapter', 'caddyfile'], {
      env: { HOME: this.root, XDG_DATA_HOME: path.join(this.root, 'caddy'), XDG_CONFIG_HOME: this.root },
    });
    await this.waitFor(async () => (await accepts(this.radicalePort)) && (await accepts(this.httpsPort)));
  }

  private spawn(command: string, args: string[], o: { uid?: number; gid?: number; env?: object } = {}) {
    const child = spawn(command, args, {
      env: { ...process.env, ...o.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(o.uid === undefined ? {} : { uid: o.uid, gid: o.gid }),
    });
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-8000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.children.push(child);
  }

  private async waitFor(ready: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!(await ready())) {
      const exited = this.children.find((c) => c.exitCode !== null);
      if (exited) throw new Error(`${exited.spawnfile} exited (${exited.exitCode}):\n${this.logs()}`);
      if (Date.now() > deadline)
        throw new Error(`Radicale or Caddy did not listen within 30 s:\n${this.logs()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** One request through Caddy as `host` names it (Caddy's certificate is its own). */
  fetch(
    host: string,
    o: { method?: string; path: string; headers?: Record<string, string>; body?: string },
  ): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.httpsPort,
          method: o.method ?? 'GET',
          path: o.path,
          servername: host,
          headers: { host: `${host}:${this.httpsPort}`, ...o.headers },
          rejectUnauthorized: false,
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.end(o.body);
    });
  }

  /** Caddy's and Radicale's output, for a failing assertion's message. */
  logs(): string {
    return this.output;
  }

  async close(): Promise<void> {
    const children = this.children;
    this.children = [];
    await stopChildren(children);
    rmSync(this.root, { recursive: true, force: true });
  }
}
