import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HostLayout } from '../../src/operator/host-layout.ts';
import { installCommand } from '../../src/operator/install/install.command.ts';
import { accepts, readLog, spawnDaemon, uidOf } from '../support/daemons.ts';
import { freePort } from '../support/free-port.ts';
import { makeCertificate } from './test-certificates.ts';

/**
 * The host doctor.test.ts examines, installed with `install --root DIR` and an operator's
 * certificate, its daemons started from DIR's files as their packages start them on a host:
 * Dovecot, Postfix, OpenDKIM, then Caddy through install's init script (user caddy) and Radicale
 * (user radicale). Atrium runs in the test's own process, on its test database.
 */
export const MAIL_HOST = 'mail.atrium.test';

const PORTS = [
  'atrium',
  'smtp',
  'submission',
  'submissions',
  'imap',
  'imaps',
  'lmtp',
  'auth',
  'quota-status',
  'dkim',
  'socketmap',
  'sasl',
  'http',
  'https',
  'rspamd',
  'rspamd-controller',
  'redis',
  'managesieve',
  'policy',
] as const;
export type Ports = Record<(typeof PORTS)[number], number>;

export async function freePorts(): Promise<Ports> {
  return Object.fromEntries(
    await Promise.all(PORTS.map(async (name) => [name, await freePort()] as const)),
  ) as Ports;
}

export async function until(ready: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not happen within 20 s`);
}

/** The command of install's cron file `name`, as cron runs it. */
function cronCommand(layout: HostLayout, name: string): string {
  const line = readFileSync(path.join(layout.cronDir, name), 'utf8')
    .split('\n')
    .find((l) => /^[\d*]/.test(l))!;
  return line.replace(/^(\S+\s+){5}root\s+/, '').replace(/\s*>\/dev\/null$/, '');
}

export function startDovecot(layout: HostLayout): void {
  // The daemon keeps the descriptors it was given: pipes would keep spawnSync waiting for ever.
  const run = spawnSync('/usr/sbin/dovecot', ['-c', path.join(layout.dovecotDir, 'dovecot.conf')], {
    stdio: 'ignore',
  });
  if (run.status !== 0)
    throw new Error(`dovecot did not start (${run.status}): see ${layout.mailLogDir}/dovecot.log`);
}

/**
 * install --root with the operator's certificate for the mail host and the console (Caddy's own
 * CA for any other name): Caddy serves it, and atrium-tls-sync copies it for Postfix and Dovecot.
 */
export async function installWithOperatorCertificate(
  layout: HostLayout,
  ports: Ports,
  checkout: string,
): Promise<void> {
  const tlsDir = path.join(layout.root, 'etc/ssl/operator');
  mkdirSync(tlsDir, { recursive: true, mode: 0o755 });
  const tls = makeCertificate(tlsDir, 'operator', { names: [MAIL_HOST, 'atrium.test'], days: 60 });
  chownSync(tls.key, uidOf('caddy').uid, 0);
  chmodSync(tls.key, 0o600);
  await installCommand(
    [
      '--root',
      layout.root,
      '--tls-cert',
      tls.cert,
      '--tls-key',
      tls.key,
      '--internal-tls',
      '--no-webmail',
      '--public-url',
      'http://atrium.test',
      '--mail-host',
      MAIL_HOST,
      '--listen',
      '127.0.0.1',
      ...Object.entries(ports).flatMap(([name, port]) => [`--${name}-port`, String(port)]),
    ],
    checkout,
    () => undefined,
  );
}

/** Radicale on a port of this test's own, where Atrium (and doctor) look for it. */
export async function moveRadicale(layout: HostLayout): Promise<string> {
  const address = `127.0.0.1:${await freePort()}`;
  writeFileSync(
    layout.settingsFile,
    readFileSync(layout.settingsFile, 'utf8').replace(
      /^DAV_RADICALE_ADDRESS=.*$/m,
      `DAV_RADICALE_ADDRESS=${address}`,
    ),
  );
  return address;
}

/**
 * What the packages and the sync scripts leave on a host: the daemons' run, queue and data
 * directories, Atrium's log, the certificate's copies and OpenDKIM's copy of a key (`keyFile`).
 */
export function prepareHostFiles(layout: HostLayout, keyFile: string): void {
  const owned = (dir: string, user?: string) => {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    if (user) chownSync(dir, uidOf(user).uid, uidOf(user).gid);
  };
  const at = (p: string) => path.join(layout.root, p);
  owned(at('run/dovecot'));
  owned(at('run/opendkim'), 'opendkim');
  owned(at('var/spool/postfix'));
  owned(at('var/lib/postfix'), 'postfix');
  owned(layout.runDir);
  owned(at('run'));
  if (!existsSync(path.dirname(layout.caddyLog))) owned(path.dirname(layout.caddyLog), 'caddy');
  // Atrium's log as its init script opens it (this test's Atrium runs in the test's process).
  writeFileSync(path.join(layout.logDir, 'atrium.log'), '', { flag: 'a' });
  // The certificate's copies for Postfix and Dovecot, as cron makes them every minute.
  const sync = cronCommand(layout, 'atrium-tls');
  if (spawnSync('sh', ['-c', sync], { stdio: 'ignore' }).status !== 0) throw new Error(`${sync} failed`);

  // OpenDKIM's copies of the keys, as atrium-dkim-sync leaves them: opendkim's, 0600.
  const opendkimIds = uidOf('opendkim');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(
    path.join(layout.opendkimKeysDir, 'KeyTable'),
    `atrium._domainkey.acme.example acme.example:atrium:${keyFile}\n`,
  );
  writeFileSync(
    path.join(layout.opendkimKeysDir, 'SigningTable'),
    'acme.example atrium._domainkey.acme.example\n',
  );
  for (const file of [keyFile, 'KeyTable', 'SigningTable'].map((f) =>
    path.resolve(layout.opendkimKeysDir, f),
  )) {
    chownSync(file, opendkimIds.uid, opendkimIds.gid);
  }
}

/** Dovecot, Postfix and OpenDKIM from DIR's files; returns OpenDKIM's process. */
export async function startMailDaemons(layout: HostLayout, dkimPort: number): Promise<ChildProcess> {
  startDovecot(layout);
  spawnSync('/usr/sbin/postfix', ['-c', layout.postfixDir, 'set-permissions'], { stdio: 'ignore' });
  const postfix = spawnSync('/usr/sbin/postfix', ['-c', layout.postfixDir, 'start'], { stdio: 'ignore' });
  if (postfix.status !== 0)
    throw new Error(`postfix did not start (${postfix.status}): see ${layout.mailLogDir}/postfix.log`);
  const dkim = spawnDaemon('/usr/sbin/opendkim', ['-x', layout.opendkimConf]);
  await until(async () => {
    if (dkim.exited()) throw new Error(`opendkim exited: ${dkim.output()}`);
    return accepts(dkimPort);
  }, 'OpenDKIM listening');
  return dkim.child;
}

/** Caddy through install's init script (user caddy) and Radicale (user radicale); returns Radicale. */
export async function startFront(
  layout: HostLayout,
  httpsPort: number,
  radicaleAddress: string,
): Promise<ChildProcess> {
  const caddy = spawnSync(path.join(layout.initDir, 'atrium-caddy'), ['start'], { encoding: 'utf8' });
  if (caddy.status !== 0) throw new Error(`atrium-caddy start: ${caddy.stderr}`);
  const radicale = spawn(
    '/usr/bin/radicale',
    ['--config', layout.radicaleConfig, '--server-hosts', radicaleAddress],
    { ...uidOf('radicale'), stdio: 'ignore' },
  );
  await until(
    async () => (await accepts(httpsPort)) && (await accepts(Number(radicaleAddress.split(':')[1]))),
    `Caddy and Radicale listening:\n${readLog(layout.caddyLog)}`,
  );
  return radicale;
}
