import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ImapFlow } from 'imapflow';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { connectDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { hashPassword, verifyPassword } from '../../src/lib/passwords.ts';
import { openClientSecret } from '../../src/oidc/client-secrets.ts';
import { resticFor } from '../../src/operator/backup/restic.ts';
import { operationsLogFile, readOperations } from '../../src/operator/operations-log.ts';
import { readSettingsFile } from '../../src/operator/settings-file.ts';
import { registerTestClient } from '../identity/support/clients.ts';
import type { SoftPasskey } from '../identity/support/passkey.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { DeploymentClient, timeStep, type AppTokens } from './deployment-client.ts';
import {
  addedBytes,
  cliInBackground,
  filesOf,
  folderOf,
  imapAs,
  liveTables,
  messageFiles,
  subjectsOnDisk,
} from './host-inspection.ts';
import { sendTo, submitUntilAccepted } from './host-mail.ts';
import { onServer } from '../support/postgres-template.ts';
import { atriumCli, InstalledHost } from './installed-host.ts';
import { insertVerifiedDomainWithKey } from './verified-domain.ts';

// The operator's backup and restore drill on a host installed by `install --root`, on the
// embedded database or (TEST_DATABASE_URL) a database of its own on the PostgreSQL server: fill
// it, back it up while 20 clients write and mail arrives, destroy it, restore, start, and use it.

const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'https://app.example/cb';
const domain = `b${randomBytes(4).toString('hex')}.example.com`;
const otherDomain = `o${randomBytes(4).toString('hex')}.example.com`;
const admin = `ada@${domain}`;
const serverUrl = process.env.TEST_DATABASE_URL;
const databaseName = `atrium_backup_${randomBytes(5).toString('hex')}`;

let host: InstalledHost;
let deployment: DeploymentClient;
let outbox: Mailbox;
let databaseUrl: string | undefined;
let secret: string;
let registered: { clientId: string; clientSecret: string };
/** An app of the other organisation, whose admin signs in to it with password and e-mailed code. */
let otherApp: { clientId: string; clientSecret: string };
let adaSession: TestSession;
let authenticatorSecret: string;
let usedStep: number;
let passkey: SoftPasskey;
let tokensBefore: AppTokens;
let appPassword: string;
let dkimRecords: { host: string; value: string }[];
let dkimBefore: Record<string, string>;
let messagesBefore: Record<string, string>;
let backupOutput: string;
/** What was acknowledged before the backup started: users added (201) and messages delivered. */
let ackedUsers: string[];
let deliveredSubjects: string[];

const cli = (args: string[]) => atriumCli([...args, '--root', host.layout.root]);

const imap = <T>(use: (client: ImapFlow) => Promise<T>) => imapAs(host, admin, secret, use);
const folder = (name: string) => folderOf(host, admin, secret, name);
const serverDatabase = (statement: string) => onServer(serverUrl!, statement);

beforeAll(async () => {
  outbox = await Mailbox.start();
  host = await InstalledHost.create();
  deployment = new DeploymentClient(host.publicUrl);
  if (serverUrl) {
    await serverDatabase(`create database ${databaseName}`);
    const url = new URL(serverUrl);
    url.pathname = `/${databaseName}`;
    databaseUrl = url.href;
  }
  const installed = host.install(databaseUrl ? ['--database-url', databaseUrl] : []);
  if (installed.status !== 0) throw new Error(`install failed:\n${installed.output}`);
  host.addSettings({ SMTP_URL: outbox.url });
  const settings = readSettingsFile(host.layout.settingsFile)!;
  secret = settings.ATRIUM_SECRET!;
  // Filled before the server starts (it then holds the embedded database), as a deployment that
  // has been used: two organisations, an app, a verified domain with its DKIM key.
  const config = loadConfig({ ...settings });
  const db = await connectDatabase(
    databaseUrl ? { databaseUrl } : { pgliteDir: path.join(host.layout.dataDir, 'pgdata') },
  );
  await migrateToLatest(db);
  const passwordHash = await hashPassword(PASSWORD);
  const org = await createOrganizationWithAdmin(db, {
    siteName: `backup${randomBytes(3).toString('hex')}`,
    adminEmail: admin,
    passwordHash,
    subscription: { planKey: 'enterprise', seats: 5000, status: 'active' },
  });
  const bob = await createUser(db, org.id, { email: `bob@${domain}`, passwordHash });
  const other = await createOrganizationWithAdmin(db, {
    siteName: `other${randomBytes(3).toString('hex')}`,
    adminEmail: `cy@${otherDomain}`,
    passwordHash,
  });
  registered = await registerTestClient(db, config, { organizationId: org.id, redirectUri: REDIRECT });
  otherApp = await registerTestClient(db, config, { organizationId: other.id, redirectUri: REDIRECT });
  await insertVerifiedDomainWithKey(db, org.id, domain, secret);
  adaSession = await signInAs(db, org.admin);
  const bobSession = await signInAs(db, bob);
  await db.destroy();
  if (!databaseUrl) {
    // This process's lock on the embedded database goes only when it exits: the server takes it.
    rmSync(path.join(host.layout.dataDir, 'pgdata.lock'), { force: true });
    spawnSync('chown', ['-R', 'atrium:atrium', host.layout.dataDir]);
  }

  await host.startAtrium();
  host.syncDkim();
  await host.startMail();
  // Through the API, as people do: an authenticator app, a passkey, an app's tokens, an app password.
  authenticatorSecret = await deployment.enrolAuthenticator(adaSession);
  passkey = await deployment.registerPasskey(bobSession, PASSWORD);
  usedStep = timeStep() + 1;
  tokensBefore = await deployment.signInWithAuthenticator(
    await deployment.app(registered),
    REDIRECT,
    { email: admin, password: PASSWORD, secret: authenticatorSecret },
    usedStep,
  );
  expect(tokensBefore.refresh_token).toBeTruthy();
  const created = await deployment.api(adaSession, 'POST', '/api/profile/app-passwords', { name: 'Laptop' });
  expect(created.status, created.body).toBe(201);
  appPassword = String(created.json().password);
  const mailDomains = await deployment.api(adaSession, 'GET', '/api/mail/domains');
  dkimRecords = (
    mailDomains.json().domains as { records: { purpose: string; host: string; value: string }[] }[]
  )
    .flatMap((d) => d.records)
    .filter((r) => r.purpose === 'dkim');
  expect(dkimRecords.length).toBeGreaterThan(0);

  await imap(async (c) => {
    await c.mailboxCreate('Projects');
    await c.append('Projects', `From: eve@example.net\r\nTo: ${admin}\r\nSubject: Kept\r\n\r\nBody\r\n`, [
      '\\Flagged',
    ]);
    // Mail is most of a deployment's bytes: 24 messages of 200 KiB that a second backup finds stored.
    await c.mailboxCreate('Archive');
    for (let i = 0; i < 24; i++) {
      const body = randomBytes(150 * 1024)
        .toString('base64')
        .replace(/.{76}/g, '$&\r\n');
      await c.append(
        'Archive',
        `From: eve@example.net\r\nTo: ${admin}\r\nSubject: Report ${i}\r\n\r\n${body}\r\n`,
        ['\\Seen'],
      );
    }
    await c.append('INBOX', `From: eve@example.net\r\nTo: ${admin}\r\nSubject: Hello\r\n\r\nHi\r\n`, [
      '\\Seen',
    ]);
  });
  // Atrium writes the verified domain's key for OpenDKIM at start and with its jobs.
  for (
    let i = 0;
    i < 200 && !JSON.stringify(Object.keys(filesOf(host.layout.dkimDir))).includes(domain);
    i++
  ) {
    await new Promise((r) => setTimeout(r, 100));
  }
  dkimBefore = filesOf(host.layout.dkimDir);
}, 300_000);

afterAll(async () => {
  await host?.close();
  await outbox?.close();
  if (serverUrl) await serverDatabase(`drop database if exists ${databaseName} with (force)`);
});

// restic, the database and the daemons on a busy two-core machine: no test here is quick.
const SLOW = 240_000;

describe('backup and restore', () => {
  it(
    'backs up while 20 clients add users and mail arrives, in one line, making the password file 0600',
    async () => {
      const restic = resticFor(host.layout, readSettingsFile(host.layout.settingsFile)!);
      const dry = cli(['backup', '--dry-run']);
      expect(dry.status, dry.output).toBe(0);
      expect(dry.stdout).toMatch(
        /^Would back up to .+ and 3 mailboxes below .+; then keep --keep-last 3 --keep-daily 7 --keep-weekly 4 --keep-monthly 6 \(a first backup makes the password file .+\)$/m,
      );
      expect(existsSync(restic.passwordFile)).toBe(false);

      let writing = true;
      const added: { email: string; at: number }[] = [];
      const writers = Array.from({ length: 20 }, async (_, w) => {
        for (let i = 0; writing; i++) {
          const localPart = `w${w}n${i}`;
          const response = await deployment.api(adaSession, 'POST', '/api/users', {
            firstName: 'Writer',
            lastName: `Number ${w}`,
            localPart,
            domain,
            groupIds: [],
            // A first password: invitations (to a personal address, the domain's mail being hosted
            // here) are limited per minute, and this is about writes during the backup.
            credential: 'password',
            password: PASSWORD,
          });
          if (response.status !== 201)
            throw new Error(
              `POST /api/users: ${response.status} ${response.body}\n${readFileSync(host.atriumLog, 'utf8')
                .split('\n')
                .filter((l) => l.includes('"level":50'))
                .slice(0, 2)
                .join('\n')}`,
            );
          added.push({ email: `${localPart}@${domain}`, at: Date.now() });
          // At most 8 writes a second in all: the API takes 600 a minute from one address (on
          // PostgreSQL, 20 writers unpaced reached that before the first message arrived).
          await new Promise((r) => setTimeout(r, 2500));
        }
      });
      const arrivals = (async () => {
        for (let i = 0; writing; i++) {
          await sendTo(host, host.ports.smtp, {
            from: 'eve@sender.example.net',
            to: admin,
            subject: `Arrival ${i}`,
          });
        }
      })();
      // The backup starts once the writers have had writes acknowledged, however busy the machine.
      await expect
        .poll(() => added.length >= 20 && subjectsOnDisk(host).some((x) => x.startsWith('Arrival')), {
          timeout: 120_000,
          interval: 200,
        })
        .toBe(true);
      const startedAt = Date.now();
      deliveredSubjects = subjectsOnDisk(host).filter((s) => s.startsWith('Arrival'));
      const backup = await cliInBackground(host, ['backup']);
      writing = false;
      await Promise.all([...writers, arrivals]);
      ackedUsers = added.filter((a) => a.at < startedAt).map((a) => a.email);
      console.log(
        `while backing up: ${added.length} users added (${ackedUsers.length} before it started), ` +
          `${subjectsOnDisk(host).filter((x) => x.startsWith('Arrival')).length} messages delivered (${deliveredSubjects.length} before)`,
      );
      expect(ackedUsers.length).toBeGreaterThanOrEqual(20);
      expect(deliveredSubjects.length).toBeGreaterThan(0);
      expect(added.length).toBeGreaterThan(ackedUsers.length);

      expect(backup.status, backup.output).toBe(0);
      backupOutput = backup.stdout;
      console.log(`first backup: ${backup.stdout.trim()}`);
      expect(backup.stdout).toMatch(
        /^Backup [0-9a-f]{8}: .+ added \(\d+ tables, 3 mailboxes, .+ read\), .+ in .+ \(1 snapshot\), [\d.]+ s$/m,
      );
      expect(backup.stdout).toContain('keep a copy away from this host');
      expect((statSync(restic.passwordFile).mode & 0o777).toString(8)).toBe('600');
      // The password is in no settings file or command line, only its file's name.
      expect(readFileSync(host.layout.settingsFile, 'utf8')).not.toContain(
        readFileSync(restic.passwordFile, 'utf8').trim(),
      );
    },
    SLOW,
  );

  it(
    'refuses to restore while Atrium runs, and over a deployment without --force, in one line each',
    async () => {
      const running = cli(['restore']);
      expect(running.status).toBe(1);
      expect(running.stderr.trim().split('\n')).toHaveLength(1);
      expect(running.stderr).toContain(`stop Atrium before restoring: ${host.layout.initDir}/atrium stop`);

      spawnSync(path.join(host.layout.initDir, 'atrium'), ['stop']);
      const refused = cli(['restore']);
      expect(refused.status).toBe(1);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(
        /^Deployment .+: not empty \(2 organisations, .+\) — restore replaces all of it only with --force$/m,
      );
      const dry = cli(['restore', '--force', '--dry-run']);
      expect(dry.status, dry.output).toBe(0);
      expect(dry.stdout).toMatch(/^Would restore snapshot [0-9a-f]{8} of .+ onto .+: the database, .+$/m);
    },
    SLOW,
  );

  it(
    'brings back database, secret, DKIM keys and mail after they are destroyed: people sign in, the app refreshes',
    async () => {
      messagesBefore = messageFiles(host);
      if (databaseUrl) {
        await serverDatabase(`drop database ${databaseName} with (force)`);
        // What an operator does on a new host before restoring: an empty database for Atrium.
        await serverDatabase(`create database ${databaseName}`);
      }
      rmSync(host.layout.dataDir, { recursive: true, force: true });
      rmSync(host.layout.dkimDir, { recursive: true, force: true });
      rmSync(host.layout.opendkimKeysDir, { recursive: true, force: true });
      for (const name of readdirSync(host.layout.mailRoot))
        rmSync(path.join(host.layout.mailRoot, name), { recursive: true });

      const restored = cli(['restore']);
      expect(restored.status, restored.output).toBe(0);
      expect(restored.stdout).toMatch(
        /^Restored snapshot [0-9a-f]{8} of .+: \d+ tables .+3 mailboxes \(\d+ messages\)/m,
      );
      // rspamd's learned data back in the host's Redis (Redis kept running: only its data replaced).
      expect(restored.stdout).toMatch(
        /^Redis 127\.0\.0\.1:\d+: rspamd's learned data restored \(\d+ keys\)$/m,
      );
      await host.startAtrium();
      host.syncDkim();

      // Nothing acknowledged before the backup started is missing, and no transaction is half there.
      const after = await liveTables(host);
      const emails = new Set(after.users!.map((u) => u.email));
      expect(ackedUsers.filter((e) => !emails.has(e))).toEqual([]);
      const writerIds = new Set(
        after.users!.filter((u) => /^w\d+n\d+@/.test(String(u.email))).map((u) => u.id),
      );
      const addedActivity = new Set(
        after.activity_log!.filter((a) => a.action === 'user.added').map((a) => a.target_id),
      );
      expect([...writerIds].filter((id) => !addedActivity.has(id))).toEqual([]);
      expect([...addedActivity].filter((id) => !writerIds.has(id))).toEqual([]);

      const adaRow = after.users!.find((u) => u.email === admin)!;
      expect(await verifyPassword(String(adaRow.password_hash), PASSWORD)).toBe(true);
      const clientRow = after.oidc_clients!.find((c) => c.client_id === registered.clientId)!;
      const config = loadConfig(readSettingsFile(host.layout.settingsFile)!);
      expect(openClientSecret(config, String(clientRow.client_secret_enc))).toBe(registered.clientSecret);
      expect(Object.keys(dkimBefore).some((name) => name.includes(domain))).toBe(true);
      expect(filesOf(host.layout.dkimDir)).toEqual(dkimBefore);

      // The same people sign in the same ways, and the app's refresh token from before still works.
      const rp = await deployment.app(registered);
      const refreshed = await client.refreshTokenGrant(rp, tokensBefore.refresh_token!);
      expect(refreshed.claims()?.email).toBe(admin);
      const now = timeStep();
      const withCode = await deployment.signInWithAuthenticator(
        rp,
        REDIRECT,
        { email: admin, password: PASSWORD, secret: authenticatorSecret },
        now > usedStep ? now : usedStep + 1,
      );
      expect(withCode.claims()?.email).toBe(admin);
      const cy = `cy@${otherDomain}`;
      const otherRp = await deployment.app(otherApp);
      const withEmailedCode = await deployment.signInWithEmailedCode(otherRp, REDIRECT, outbox, {
        email: cy,
        password: PASSWORD,
      });
      expect(withEmailedCode.claims()?.email).toBe(cy);
      expect((await deployment.signInWithPasskey(rp, REDIRECT, passkey)).claims()?.email).toBe(
        `bob@${domain}`,
      );

      // Same messages, folders and flags; the messages delivered before the backup are all there.
      expect(Object.keys(messagesBefore).length).toBeGreaterThan(2);
      const restoredMessages = messageFiles(host);
      for (const [name, file] of Object.entries(restoredMessages)) expect(messagesBefore[name]).toBe(file);
      expect(await folder('Projects')).toEqual([['Kept', ['\\Flagged']]]);
      const inbox = (await folder('INBOX')).map(([subject]) => subject);
      expect(deliveredSubjects.filter((subject) => !inbox.includes(subject))).toEqual([]);
      for (const subject of subjectsOnDisk(host).filter((x) => x.startsWith('Arrival'))) {
        expect(inbox).toContain(subject);
      }

      // A new message is signed with the same key: the record published before the backup verifies it.
      await submitUntilAccepted(
        host,
        { from: admin, to: admin, subject: 'Signed after the restore' },
        { user: admin, pass: appPassword },
      );
      await host.drainQueue();
      const source = await imap(async (c) => {
        const lock = await c.getMailboxLock('INBOX');
        try {
          for await (const m of c.fetch('1:*', { envelope: true, source: true }))
            if (m.envelope?.subject === 'Signed after the restore' && m.source) return m.source;
        } finally {
          lock.release();
        }
        throw new Error(`not delivered:\n${host.logs()}`);
      });
      const published = new Map(dkimRecords.map((r) => [r.host, r.value]));
      const result = await dkimVerify(source, {
        resolver: (name: string) =>
          published.has(name)
            ? Promise.resolve([[published.get(name)!]])
            : Promise.reject(Object.assign(new Error(`${name}: no record`), { code: 'ENOTFOUND' })),
      });
      expect(result.results.map((r) => [r.signingDomain, r.status.result])).toEqual([[domain, 'pass']]);
    },
    SLOW,
  );

  it(
    'verifies the latest snapshot, then names the table and mailbox of a damaged one',
    async () => {
      // A second backup after a small change adds a small fraction of the first.
      const added = await deployment.api(adaSession, 'POST', '/api/users', {
        firstName: 'Late',
        lastName: 'Comer',
        localPart: 'late',
        domain,
        groupIds: [],
        credential: 'invitation',
        personalEmail: 'late@home.example.net',
      });
      expect(added.status, added.body).toBe(201);
      const second = cli(['backup']);
      expect(second.status, second.output).toBe(0);
      console.log(`second backup: ${second.stdout.trim()}`);
      expect(addedBytes(second.stdout)).toBeLessThan(addedBytes(backupOutput) / 4);

      const good = cli(['backup', '--verify']);
      expect(good.status, good.output).toBe(0);
      expect(good.stdout).toMatch(/^✓ Snapshot [0-9a-f]{8} .+ restores as it was taken/);

      // A snapshot whose data no longer matches its manifest: restic's own commands, as damage would.
      const restic = resticFor(host.layout, readSettingsFile(host.layout.settingsFile)!);
      const scratch = path.join(host.layout.backupDir, 'damaged');
      const run = (args: string[], cwd?: string) => {
        const r = spawnSync('restic', args, { env: restic.env, cwd, encoding: 'utf8' });
        expect(r.status, r.stderr).toBe(0);
      };
      run(['restore', 'latest', '--target', scratch]);
      const dumpFile = path.join(scratch, 'database.ndjson');
      writeFileSync(
        dumpFile,
        readFileSync(dumpFile, 'utf8').replace('"first_name":"Uma"', '"first_name":"Eve"'),
      );
      const projects = readdirSync(path.join(scratch, 'mail'), { recursive: true }).find((p) =>
        String(p).endsWith('.Projects'),
      )!;
      const cur = path.join(scratch, 'mail', String(projects), 'cur');
      const message = path.join(cur, readdirSync(cur)[0]!);
      writeFileSync(message, readFileSync(message, 'utf8').replace('Body', 'Changed'));
      run(['backup', '--tag', 'atrium', '.'], scratch);
      rmSync(scratch, { recursive: true, force: true });

      const bad = cli(['backup', '--verify']);
      expect(bad.status).toBe(1);
      expect(bad.stdout).toContain('Table users: rows differ (checksum) though their count agrees');
      expect(bad.stdout).toContain(
        `Mailbox ${String(projects)}: messages differ (checksum) though their count agrees`,
      );
    },
    SLOW,
  );

  it(
    'logs every backup, verify and restore; the daily run verifies when the last good verify is a week old',
    () => {
      const outcomes = () =>
        readOperations(host.layout).map((e) => `${e.operation} ${e.ok ? 'ok' : 'failed'}`);
      // Dry runs are not operations; the refusals are, with their one line.
      expect(outcomes()).toEqual([
        'backup ok',
        'restore failed',
        'restore failed',
        'restore ok',
        'backup ok',
        'verify ok',
        'verify failed',
      ]);
      const entries = readOperations(host.layout);
      expect(entries[0]!.detail).toMatch(/^Backup [0-9a-f]{8}: .+ added /);
      expect(entries[1]!.detail).toContain('stop Atrium before restoring');
      expect(entries[6]!.detail).toMatch(
        /^Snapshot [0-9a-f]{8}: Table users: rows differ \(checksum\) though their count agrees; Mailbox /,
      );

      // The last good verify is minutes old: the cron line backs up only.
      const first = host.scheduledBackup();
      expect(first.status, `${first.stdout}${first.stderr}`).toBe(0);
      expect(outcomes().slice(7)).toEqual(['backup ok']);

      // Eight days later (the log's time is what the rule reads): backup, then verify.
      const log = operationsLogFile(host.layout);
      const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      writeFileSync(log, readFileSync(log, 'utf8').replace(/^\S+(?= verify ok )/m, eightDaysAgo));
      const second = host.scheduledBackup();
      expect(second.status, `${second.stdout}${second.stderr}`).toBe(0);
      expect(second.stdout).toMatch(/^✓ Snapshot [0-9a-f]{8} .+ restores as it was taken/m);
      expect(outcomes().slice(8)).toEqual(['backup ok', 'verify ok']);
      // Three snapshots at least are kept whatever their day (--keep-last 3).
      const restic = resticFor(host.layout, readSettingsFile(host.layout.settingsFile)!);
      const listed = spawnSync('restic', ['snapshots', '--json', '--tag', 'atrium'], {
        env: restic.env,
        encoding: 'utf8',
      });
      expect((JSON.parse(listed.stdout) as unknown[]).length).toBeGreaterThanOrEqual(3);

      // BACKUP_TIME=off: the timer or cron line still runs, and does nothing.
      const settings = readFileSync(host.layout.settingsFile, 'utf8');
      host.addSettings({ BACKUP_TIME: 'off' });
      try {
        const off = host.scheduledBackup();
        expect(off.status, off.stderr).toBe(0);
        expect(off.stdout).toContain('Scheduled backups are off (BACKUP_TIME=off in ');
        expect(outcomes()).toHaveLength(10);
      } finally {
        writeFileSync(host.layout.settingsFile, settings);
      }
    },
    SLOW,
  );
});
