import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { hashPassword } from '../../src/lib/passwords.ts';
import { RADICALE_PORT } from '../../src/operator/install/dav-files.ts';
import { resticFor } from '../../src/operator/backup/restic.ts';
import { rspamdSettings } from '../../src/operator/doctor/rspamd-checks.ts';
import { readSettingsFile } from '../../src/operator/settings-file.ts';
import { accepts, stopChildren, uidOf } from '../support/daemons.ts';
import { createOrganizationWithAdmin, signInAs } from '../support/fixtures.ts';
import { databaseUrl as databaseOn, onServer } from '../support/postgres-template.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { DeploymentClient } from './deployment-client.ts';
import { submitUntilAccepted } from './host-mail.ts';
import { atriumCli, InstalledHost, MAIL_HOST, ROOTS } from './installed-host.ts';
import { makeCertificate } from './test-certificates.ts';
import { insertVerifiedDomainWithKey } from './verified-domain.ts';

// Issue 45's drill: a host made by `install --root` with mail and Radicale, where a CalDAV and
// CardDAV client has made an event and a contact, is backed up and destroyed; a new host installed
// on another root (on PostgreSQL: onto another database) is restored following docs/backup.md and
// nothing else. Then the same client reads its event and contact back, IMAP takes the app password,
// submission sends with it, and doctor's only remark is the first backup still to come.

const PASSWORD = 'correct horse battery staple';
const domain = `n${randomBytes(4).toString('hex')}.example.com`;
const admin = `ada@${domain}`;
const serverUrl = process.env.TEST_DATABASE_URL;
const suffix = randomBytes(5).toString('hex');
const oldDatabase = `atrium_old_${suffix}`;
const newDatabase = `atrium_new_${suffix}`;

const EVENT_UID = `drill-${suffix}@atrium.test`;
const EVENT = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Atrium drill//EN',
  'BEGIN:VEVENT',
  `UID:${EVENT_UID}`,
  'DTSTAMP:20261201T090000Z',
  'DTSTART:20261215T100000Z',
  'DTEND:20261215T110000Z',
  'SUMMARY:Quarterly review',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');
const CONTACT = [
  'BEGIN:VCARD',
  'VERSION:3.0',
  `UID:contact-${suffix}`,
  'FN:Grace Hopper',
  'N:Hopper;Grace;;;',
  'EMAIL:grace@example.net',
  'END:VCARD',
  '',
].join('\r\n');

let oldHost: InstalledHost | undefined;
let newHost: InstalledHost;
let repository: string;
let radicale: ChildProcess | undefined;
let userId: string;
let appPassword: string;
let oldSecret: string;
let restoreOutput: string;
/** The old host's Redis after rspamd learned a message as spam: its keys. */
let learnedKeys: string[];
let dns: TestDnsServer;
let certificates: { dir: string; cert: string; key: string };

/** Radicale as its package runs it (user radicale), from the configuration install wrote. */
async function startRadicale(host: InstalledHost): Promise<void> {
  if (await accepts(RADICALE_PORT))
    throw new Error(`port ${RADICALE_PORT} is taken: Caddy's /dav/ goes there`);
  radicale = spawn('/usr/bin/radicale', ['--config', host.layout.radicaleConfig], {
    ...uidOf('radicale'),
    stdio: 'ignore',
  });
  const child = radicale;
  const deadline = Date.now() + 30_000;
  while (!(await accepts(RADICALE_PORT))) {
    if (child.exitCode !== null) throw new Error(`radicale exited (${child.exitCode})`);
    if (Date.now() > deadline) throw new Error('radicale did not listen within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stopRadicale(): Promise<void> {
  if (radicale) await stopChildren([radicale]);
  radicale = undefined;
}

/** A request as a CalDAV/CardDAV client sends it: to MAIL_HOST's /dav/ through Caddy, with the app password. */
function dav(
  host: InstalledHost,
  method: string,
  url: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: host.ports.https,
        method,
        path: url,
        servername: MAIL_HOST,
        ca: host.mailCa(),
        headers: {
          host: MAIL_HOST,
          authorization: `Basic ${Buffer.from(`${admin}:${appPassword}`).toString('base64')}`,
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What a user moved into Junk: enough words for rspamd's Bayes to learn it (it wants 11 tokens). */
const LEARNED_SPAM = [
  'From: Prize Desk <winner@prizes.example.net>',
  'To: <someone@example.org>',
  'Subject: Claim your guaranteed cash prize today',
  '',
  'Congratulations lucky winner, your guaranteed cash prize awaits: click the secure link below,',
  'confirm your bank details and claim the reward before midnight, limited offer for selected people.',
  '',
].join('\n');
const SIEVE_SCRIPT = 'require "fileinto";\nif header :contains "subject" "holiday" { fileinto "INBOX"; }\n';

/** Dovecot's doveadm on a host's own configuration (users looked up through its Atrium). */
function doveadm(host: InstalledHost, args: string[], input?: string) {
  return spawnSync('doveadm', ['-c', path.join(host.layout.dovecotDir, 'dovecot.conf'), ...args], {
    encoding: 'utf8',
    input,
  });
}

const eventUrl = () => `/dav/${userId}/calendar/${EVENT_UID}.ics`;
const contactUrl = () => `/dav/${userId}/contacts/contact-${suffix}.vcf`;

function install(host: InstalledHost, database?: string) {
  const url = serverUrl && database ? databaseOn(serverUrl, database) : undefined;
  host.operatorCa = readFileSync(certificates.cert, 'utf8');
  const installed = host.install([
    ...(url ? ['--database-url', url] : []),
    ...['--tls-cert', certificates.cert, '--tls-key', certificates.key, '--no-webmail'],
  ]);
  if (installed.status !== 0) throw new Error(`install failed:\n${installed.output}`);
  // The repository on another disk: it outlives the host it protects. The domain's DNS is the test's.
  host.addSettings({ BACKUP_REPOSITORY: repository, DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '1000' });
  return url;
}

beforeAll(async () => {
  dns = await TestDnsServer.start();
  // The operator's own certificate (self-signed) for the mail host and the sites, as doctor's test
  // has it: Caddy's internal one lasts hours, which doctor rightly calls expiring.
  const dir = mkdtempSync(path.join(ROOTS, 'certs-'));
  chmodSync(dir, 0o755);
  certificates = {
    dir,
    ...makeCertificate(dir, 'operator', { names: [MAIL_HOST, 'atrium.test', '*.atrium.test'], days: 60 }),
  };
  chownSync(certificates.key, uidOf('caddy').uid, 0);
  chmodSync(certificates.key, 0o600);
  repository = path.join(mkdtempSync(path.join(ROOTS, 'repository-')), 'restic');
  if (serverUrl) {
    await onServer(serverUrl, `create database ${oldDatabase}`);
    await onServer(serverUrl, `create database ${newDatabase}`);
  }
  const old = (oldHost = await InstalledHost.create());
  const oldUrl = install(old, oldDatabase);
  oldSecret = readSettingsFile(old.layout.settingsFile)!.ATRIUM_SECRET!;
  const db = await connectDatabase(
    oldUrl ? { databaseUrl: oldUrl } : { pgliteDir: path.join(old.layout.dataDir, 'pgdata') },
  );
  await migrateToLatest(db);
  const org = await createOrganizationWithAdmin(db, {
    adminEmail: admin,
    passwordHash: await hashPassword(PASSWORD),
  });
  userId = org.admin.id;
  const dkimKey = await insertVerifiedDomainWithKey(db, org.id, domain, oldSecret);
  // The records the domain's owner published (doctor reads them on the new host).
  dns.set(domain, { MX: [{ exchange: MAIL_HOST, priority: 10 }], TXT: [`v=spf1 include:${MAIL_HOST} ~all`] });
  dns.set(`atrium._domainkey.${domain}`, { TXT: [`v=DKIM1; k=rsa; p=${dkimKey}`] });
  dns.set(`_dmarc.${domain}`, { TXT: [`v=DMARC1; p=quarantine; rua=mailto:dmarc@${domain}`] });
  dns.set(MAIL_HOST, { A: ['127.0.0.1'], TXT: ['v=spf1 a -all'] });
  const session = await signInAs(db, org.admin);
  await db.destroy();
  if (!oldUrl) {
    // This process's lock on the embedded database goes only when it exits: the server takes it.
    rmSync(path.join(old.layout.dataDir, 'pgdata.lock'), { force: true });
    spawnSync('chown', ['-R', 'atrium:atrium', old.layout.dataDir]);
  }
  await old.startAtrium();
  old.syncDkim();
  await old.startMail();
  await startRadicale(old);

  const deployment = new DeploymentClient(old.publicUrl);
  const created = await deployment.api(session, 'POST', '/api/profile/app-passwords', { name: 'Phone' });
  expect(created.status, created.body).toBe(201);
  appPassword = String(created.json().password);

  // The client makes an event and a contact (its first request gets the default collections made).
  const home = await dav(old, 'PROPFIND', `/dav/${userId}/`, undefined, { depth: '1' });
  expect(home.status, home.body).toBe(207);
  const put = async (url: string, body: string, type: string) => {
    const r = await dav(old, 'PUT', url, body, { 'content-type': type });
    expect(r.status, `${url}: ${r.body}`).toBe(201);
  };
  await put(eventUrl(), EVENT, 'text/calendar; charset=utf-8');
  await put(contactUrl(), CONTACT, 'text/vcard; charset=utf-8');

  // A Sieve script of the user's, stored and made active as ManageSieve does (Pigeonhole's doveadm).
  const sieve = doveadm(old, ['sieve', 'put', '-u', admin, '-a', 'holiday'], SIEVE_SCRIPT);
  expect(sieve.status, sieve.stderr).toBe(0);

  // A user moved a message into Junk: rspamd learned it as spam, into the old host's Redis.
  const controller = rspamdSettings(old.layout);
  const learn = spawnSync(
    'rspamc',
    ['-h', `127.0.0.1:${old.ports['rspamd-controller']}`, '-P', controller.password!, 'learn_spam'],
    { input: LEARNED_SPAM, encoding: 'utf8' },
  );
  expect(learn.stdout, learn.stderr).toMatch(/success = true/);
  learnedKeys = redisKeys(old);

  const backup = atriumCli(['backup', '--root', old.layout.root]);
  expect(backup.status, backup.output).toBe(0);
  expect(backup.stdout).toMatch(/ 2 calendars and address books, /);
  const passwordFile = resticFor(old.layout, readSettingsFile(old.layout.settingsFile)!).passwordFile;
  const passwordCopy = path.join(path.dirname(repository), 'password');
  copyFileSync(passwordFile, passwordCopy);

  // The old host is gone: its root, its daemons and (PostgreSQL) its database.
  await stopRadicale();
  await old.close();
  oldHost = undefined;
  if (serverUrl) await onServer(serverUrl, `drop database ${oldDatabase} with (force)`);

  // The new host, as docs/backup.md has it: install, the repository and its password reachable,
  // the daemons running as install leaves them (Atrium stopped), then restore.
  newHost = await InstalledHost.create();
  install(newHost, newDatabase);
  newHost.addSettings({ BACKUP_PASSWORD_FILE: passwordCopy });
  // What install starts on a host (Atrium first: it writes OpenDKIM's tables), then docs step 2.
  await newHost.startAtrium();
  newHost.syncDkim();
  await newHost.startMail();
  await startRadicale(newHost);
  spawnSync(path.join(newHost.layout.initDir, 'atrium'), ['stop']);
  const restored = atriumCli(['restore', '--force', '--root', newHost.layout.root]);
  expect(restored.status, restored.output).toBe(0);
  restoreOutput = restored.stdout;
  await newHost.startAtrium();
  newHost.syncDkim();
}, 400_000);

afterAll(async () => {
  await stopRadicale();
  await oldHost?.close();
  await newHost?.close();
  rmSync(path.dirname(repository), { recursive: true, force: true });
  rmSync(certificates.dir, { recursive: true, force: true });
  await dns?.close();
  if (serverUrl) {
    await onServer(serverUrl, `drop database if exists ${oldDatabase} with (force)`);
    await onServer(serverUrl, `drop database if exists ${newDatabase} with (force)`);
  }
});

function redisKeys(host: InstalledHost): string[] {
  const run = spawnSync('redis-cli', ['-p', String(host.ports.redis), '--scan'], { encoding: 'utf8' });
  return run.stdout.split('\n').filter(Boolean).sort();
}

function cliAsync(args: string[]): Promise<{ status: number; stdout: string; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['apps/server/src/cli.ts', ...args],
      { cwd: path.resolve(import.meta.dirname, '../../../..'), encoding: 'utf8', timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ status: error ? Number(error.code) : 0, stdout, output: `${stdout}${stderr}` }),
    );
  });
}

describe('restore onto a new host', () => {
  it("keeps the new host's database and paths, takes the secret, and writes Dovecot's files again", () => {
    const settings = readSettingsFile(newHost.layout.settingsFile)!;
    expect(settings.ATRIUM_SECRET).toBe(oldSecret);
    expect(settings.DATA_DIR).toBe(newHost.layout.dataDir);
    expect(settings.MAIL_DICT_SOCKET).toBe(newHost.layout.dictSocket);
    expect(settings.MAIL_DKIM_DIR).toBe(newHost.layout.dkimDir);
    expect(settings.DATABASE_URL).toBe(serverUrl ? databaseOn(serverUrl, newDatabase) : undefined);
    expect(settings.PORT).toBe(String(newHost.ports.atrium));
    expect(restoreOutput).toContain(
      `✓ doveadm -c ${path.join(newHost.layout.dovecotDir, 'dovecot.conf')} reload`,
    );
    expect(restoreOutput).toMatch(
      /2 calendars and address books, the secrets and DKIM keys; [1-9]\d* of install's files written again/,
    );
    expect(existsSync(path.join(newHost.layout.radicaleStorage, 'collection-root', userId))).toBe(true);
  });

  it("gives rspamd what it learned on the old host: Redis's keys, in the new host's Redis", () => {
    expect(learnedKeys.length).toBeGreaterThan(1);
    const restored = new RegExp(
      `Redis 127\\.0\\.0\\.1:${newHost.ports.redis}: rspamd's learned data restored \\((\\d+) keys\\)`,
    ).exec(restoreOutput);
    expect(restored, restoreOutput).not.toBeNull();
    // The keys it learned into, and any rspamd wrote before the backup (greylisting).
    expect(Number(restored![1])).toBeGreaterThanOrEqual(learnedKeys.length);
    expect(redisKeys(newHost)).toEqual(expect.arrayContaining(learnedKeys));
  });

  it('gives the CalDAV/CardDAV client its event and contact back', async () => {
    const event = await dav(newHost, 'GET', eventUrl());
    expect(event.status, event.body).toBe(200);
    expect(event.body).toContain('SUMMARY:Quarterly review');
    const contact = await dav(newHost, 'GET', contactUrl());
    expect(contact.status, contact.body).toBe(200);
    expect(contact.body).toContain('FN:Grace Hopper');
    // A change goes on as before: the storage is Radicale's again (user radicale).
    const moved = await dav(newHost, 'PUT', eventUrl(), EVENT.replace('Quarterly review', 'Moved review'), {
      'content-type': 'text/calendar; charset=utf-8',
    });
    expect(moved.status, moved.body).toBe(201);
  });

  it("keeps the user's Sieve script, active, in their mail home owned by vmail", () => {
    const listed = doveadm(newHost, ['sieve', 'list', '-u', admin]);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout.trim()).toBe('holiday ACTIVE');
    const got = doveadm(newHost, ['sieve', 'get', '-u', admin, 'holiday']);
    expect(got.stdout).toContain(SIEVE_SCRIPT);
    const scripts = readdirSync(newHost.layout.mailRoot, { recursive: true })
      .map(String)
      .filter((p) => /(^|\/)sieve\/holiday\.sieve$/.test(p));
    expect(scripts).toHaveLength(1);
    expect(statSync(path.join(newHost.layout.mailRoot, scripts[0]!)).uid).toBe(uidOf('vmail').uid);
  });

  it(
    'takes the app password over IMAP and for submission, with no further step',
    { timeout: 120_000 },
    async () => {
      const imap = new ImapFlow({
        host: '127.0.0.1',
        port: newHost.ports.imap,
        secure: false,
        tls: { servername: MAIL_HOST, ca: newHost.mailCa() },
        auth: { user: admin, pass: appPassword },
        logger: false,
      });
      await imap.connect();
      try {
        const inbox = await imap.status('INBOX', { messages: true });
        expect(inbox && inbox.path).toBe('INBOX');
      } finally {
        await imap.logout();
      }
      await submitUntilAccepted(
        newHost,
        { from: admin, to: admin, subject: 'After the restore' },
        { user: admin, pass: appPassword },
      );
    },
  );

  it(
    "doctor's only remark is the first backup on this host, as a warning",
    { timeout: 120_000 },
    async () => {
      // Not spawnSync: the DNS server doctor asks answers from this process.
      const doctor = await cliAsync(['doctor', '--root', newHost.layout.root]);
      const lines = doctor.stdout.split('\n');
      expect(
        lines.filter((l) => l.startsWith('✗')),
        doctor.output,
      ).toEqual([]);
      // The other warning, if any, is that the test's repository shares the host's disk (issue 45 item 6).
      const warnings = lines.filter((l) => l.startsWith('⚠')).map((l) => l.slice(2, l.indexOf(':')));
      expect(
        warnings.filter((name) => name !== 'Backup repository'),
        doctor.output,
      ).toEqual(['Backups']);
      expect(lines.find((l) => l.startsWith('⚠ Backups:'))).toMatch(
        /^⚠ Backups: first backup on this host: restored (less than a minute|\d+ minutes?) ago \(snapshot [0-9a-f]{8}\), none taken here yet/,
      );
      expect(doctor.status, doctor.output).toBe(0);
    },
  );
});
