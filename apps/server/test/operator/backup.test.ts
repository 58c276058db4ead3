import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { connectDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { parseDump } from '../../src/db/logical-dump.ts';
import { hashPassword, verifyPassword } from '../../src/lib/passwords.ts';
import { masterLogin, masterPassword } from '../../src/modules/mail/config/mail-master-user.ts';
import { openClientSecret } from '../../src/oidc/client-secrets.ts';
import { resticFor } from '../../src/operator/backup/restic.ts';
import { readSettingsFile } from '../../src/operator/settings-file.ts';
import { registerTestClient } from '../identity/support/clients.ts';
import { createOrganizationWithAdmin, createUser } from '../support/fixtures.ts';
import { atriumCli, InstalledHost } from './installed-host.ts';
import { insertVerifiedDomainWithKey } from './verified-domain.ts';

// The operator's backup and restore drill on a host installed by `install --root` with the
// embedded database: fill it, back it up while it serves, destroy it, restore, start, compare.

const PASSWORD = 'correct horse battery staple';
const domain = `b${randomBytes(4).toString('hex')}.example.com`;
const admin = `ada@${domain}`;

let host: InstalledHost;
let secret: string;
let client: { clientId: string; clientSecret: string };
let dkimBefore: Record<string, string>;
let messagesBefore: Record<string, string>;
let backupOutput: string;
/** The server's tables before the deployment is destroyed. */
let before: Awaited<ReturnType<typeof liveTables>>;

const cli = (args: string[]) => atriumCli([...args, '--root', host.layout.root]);

/** Every file below `dir` with its content, owner and mode. */
function filesOf(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const at = path.join(dir, name);
    const s = statSync(at);
    if (s.isFile())
      files[name] = `${s.uid}:${s.gid} ${(s.mode & 0o7777).toString(8)} ${readFileSync(at, 'base64')}`;
  }
  return files;
}

/** The mail store's messages (Dovecot's index files, which it rebuilds, left out). */
const messageFiles = () =>
  Object.fromEntries(
    Object.entries(filesOf(host.layout.mailRoot)).filter(([name]) => /\/(cur|new)\//.test(name)),
  );

async function imap<T>(use: (client: ImapFlow) => Promise<T>): Promise<T> {
  const connection = new ImapFlow({
    host: '127.0.0.1',
    port: host.ports.imap,
    secure: false,
    auth: { user: masterLogin(admin), pass: masterPassword(secret) },
    logger: false,
  });
  await connection.connect();
  try {
    return await use(connection);
  } finally {
    await connection.logout();
  }
}

/** The running server's dump (the same endpoint backup uses), by table. */
async function liveTables() {
  const settings = readSettingsFile(host.layout.settingsFile)!;
  const response = await fetch(`${host.publicUrl}/api/operator/database-dump`, {
    headers: { authorization: `Bearer ${settings.OPERATOR_TOKEN}` },
  });
  expect(response.status).toBe(200);
  const dump = parseDump(await response.text());
  return Object.fromEntries(
    dump.tables.map((t) => [t.name, t.rows.map((r) => JSON.parse(r) as Record<string, unknown>)]),
  );
}

beforeAll(async () => {
  host = await InstalledHost.create();
  const installed = host.install();
  if (installed.status !== 0) throw new Error(`install failed:\n${installed.output}`);
  const settings = readSettingsFile(host.layout.settingsFile)!;
  secret = settings.ATRIUM_SECRET!;
  // Filled before the server starts (it then holds the database), as a deployment that has been used.
  const config = loadConfig({ ...settings });
  const db = await connectDatabase({ pgliteDir: path.join(host.layout.dataDir, 'pgdata') });
  await migrateToLatest(db);
  const org = await createOrganizationWithAdmin(db, {
    siteName: `backup${randomBytes(3).toString('hex')}`,
    adminEmail: admin,
    passwordHash: await hashPassword(PASSWORD),
  });
  await createUser(db, org.id, { email: `bob@${domain}`, passwordHash: await hashPassword(`${PASSWORD} 2`) });
  client = await registerTestClient(db, config, {
    organizationId: org.id,
    redirectUri: 'https://app.example/cb',
  });
  await insertVerifiedDomainWithKey(db, org.id, domain, secret);
  await db.destroy();
  // This process's lock on the embedded database goes only when it exits: the server takes it.
  rmSync(path.join(host.layout.dataDir, 'pgdata.lock'), { force: true });
  spawnSync('chown', ['-R', 'atrium:atrium', host.layout.dataDir]);

  await host.startAtrium();
  host.syncDkim();
  await host.startMail();
  await imap(async (c) => {
    await c.mailboxCreate('Projects');
    await c.append('Projects', `From: eve@example.net\r\nTo: ${admin}\r\nSubject: Kept\r\n\r\nBody\r\n`, [
      '\\Flagged',
    ]);
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
  messagesBefore = messageFiles();
}, 240_000);

afterAll(async () => {
  await host?.close();
});

// restic, PGlite and the daemons on a busy two-core machine: no test here is quick.
const SLOW = 180_000;

describe('backup and restore', () => {
  it(
    'backs up while the server serves, in one line, making the password file 0600',
    () => {
      const restic = resticFor(host.layout, readSettingsFile(host.layout.settingsFile)!);
      const dry = cli(['backup', '--dry-run']);
      expect(dry.status, dry.output).toBe(0);
      expect(dry.stdout).toMatch(
        /^Would back up to .+ and 2 mailboxes below .+; then keep --keep-daily 7 --keep-weekly 4 --keep-monthly 6 \(a first backup makes the password file .+\)$/m,
      );
      expect(existsSync(restic.passwordFile)).toBe(false);

      const backup = cli(['backup']);
      expect(backup.status, backup.output).toBe(0);
      backupOutput = backup.stdout;
      expect(backup.stdout).toMatch(
        /^Backup [0-9a-f]{8}: .+ added \(\d+ tables, 2 mailboxes, .+ read\), .+ in .+ \(1 snapshot\), [\d.]+ s$/m,
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

      before = await liveTables();
      spawnSync(path.join(host.layout.initDir, 'atrium'), ['stop']);
      const refused = cli(['restore']);
      expect(refused.status).toBe(1);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(
        /^Deployment .+: not empty \(1 organisations, .+\) — restore replaces all of it only with --force$/m,
      );
      const dry = cli(['restore', '--force', '--dry-run']);
      expect(dry.status, dry.output).toBe(0);
      expect(dry.stdout).toMatch(/^Would restore snapshot [0-9a-f]{8} of .+ onto .+: the database, .+$/m);
    },
    SLOW,
  );

  it(
    'brings back database, secret, DKIM keys and mail after they are destroyed',
    async () => {
      rmSync(host.layout.dataDir, { recursive: true, force: true });
      rmSync(host.layout.dkimDir, { recursive: true, force: true });
      for (const name of readdirSync(host.layout.mailRoot))
        rmSync(path.join(host.layout.mailRoot, name), { recursive: true });

      const restored = cli(['restore']);
      expect(restored.status, restored.output).toBe(0);
      expect(restored.stdout).toMatch(
        /^Restored snapshot [0-9a-f]{8} of .+: \d+ tables .+2 mailboxes \(2 messages\)/,
      );
      await host.startAtrium();

      const after = await liveTables();
      expect(after.users).toEqual(before.users);
      const adaRow = after.users!.find((u) => u.email === admin)!;
      expect(await verifyPassword(String(adaRow.password_hash), PASSWORD)).toBe(true);
      const clientRow = after.oidc_clients!.find((c) => c.client_id === client.clientId)!;
      const config = loadConfig(readSettingsFile(host.layout.settingsFile)!);
      expect(openClientSecret(config, String(clientRow.client_secret_enc))).toBe(client.clientSecret);
      expect(Object.keys(dkimBefore).some((name) => name.includes(domain))).toBe(true);
      expect(filesOf(host.layout.dkimDir)).toEqual(dkimBefore);
      // Same names (flags), content, owner (vmail) and mode.
      expect(Object.keys(messagesBefore)).toHaveLength(2);
      expect(messageFiles()).toEqual(messagesBefore);

      const kept = await imap(async (c) => {
        const lock = await c.getMailboxLock('Projects');
        try {
          return await c.fetchAll('1:*', { envelope: true, flags: true });
        } finally {
          lock.release();
        }
      });
      expect(kept.map((m) => [m.envelope?.subject, [...(m.flags ?? [])]])).toEqual([['Kept', ['\\Flagged']]]);
    },
    SLOW,
  );

  it(
    'verifies the latest snapshot, then names the table and mailbox of a damaged one',
    () => {
      expect(backupOutput).toBeTruthy();
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
});
