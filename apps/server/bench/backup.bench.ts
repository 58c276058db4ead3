// The operator's backup on a host installed by `install --root` (embedded database): how long a
// first and a second backup, `backup --verify` and `restore --force` take, and what they add, for
// BENCH_BACKUP_USERS users (default 100,000) and BENCH_BACKUP_MESSAGES messages of 2–6 KiB
// (default 10,000) in 10 mailboxes. Run as root (install's users, the mail store's owner), with
// restic installed. Measures only; never fails on a figure.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { connectDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { uidOf } from '../test/support/daemons.ts';
import { createOrganizationWithAdmin } from '../test/support/fixtures.ts';
import { atriumCli, InstalledHost } from '../test/operator/installed-host.ts';

const USERS = Number(process.env.BENCH_BACKUP_USERS ?? 100_000);
const MESSAGES = Number(process.env.BENCH_BACKUP_MESSAGES ?? 10_000);
const MAILBOXES = 10;

const host = await InstalledHost.create();
const cli = (args: string[]) => {
  const started = performance.now();
  const run = atriumCli([...args, '--root', host.layout.root]);
  if (run.status !== 0) throw new Error(`${args.join(' ')}: ${run.output}`);
  return { seconds: (performance.now() - started) / 1000, line: run.stdout.trim().split('\n')[0]! };
};

/** One message file as Dovecot delivers it: Maildir name with flags, owned by vmail, 0600. */
function writeMessage(dir: string, i: number, owner: { uid: number; gid: number }): void {
  const body = randomBytes(1024 + Math.floor(Math.random() * 3072))
    .toString('base64')
    .replace(/.{76}/g, '$&\r\n');
  const file = path.join(dir, `${Date.now()}.M${i}P${process.pid}.bench,S=${body.length}:2,S`);
  writeFileSync(file, `From: eve@example.net\r\nSubject: Message ${i}\r\n\r\n${body}\r\n`, { mode: 0o600 });
  chownSync(file, owner.uid, owner.gid);
}

try {
  const installed = host.install();
  if (installed.status !== 0) throw new Error(installed.output);
  const db = await connectDatabase({ pgliteDir: path.join(host.layout.dataDir, 'pgdata') });
  await migrateToLatest(db);
  const org = await createOrganizationWithAdmin(db, {
    subscription: { planKey: 'enterprise', seats: USERS + 1, status: 'active' },
  });
  const seeded = performance.now();
  await sql`insert into users (organization_id, email, first_name, last_name, name_key, status)
    select ${org.id}, 'user' || i || '@bench.example.com', 'User', 'Number ' || i, 'user number ' || i, 'active'
    from generate_series(1, ${USERS}) as i`.execute(db);
  await db.destroy();
  rmSync(path.join(host.layout.dataDir, 'pgdata.lock'), { force: true });
  spawnSync('chown', ['-R', 'atrium:atrium', host.layout.dataDir]);

  const vmail = uidOf('vmail');
  for (let m = 0; m < MAILBOXES; m++) {
    const maildir = path.join(host.layout.mailRoot, org.id, `user${m}`, 'Maildir');
    for (const sub of ['cur', 'new', 'tmp']) mkdirSync(path.join(maildir, sub), { recursive: true });
    spawnSync('chown', ['-R', 'vmail:vmail', path.join(host.layout.mailRoot, org.id)]);
    for (let i = 0; i < MESSAGES / MAILBOXES; i++)
      writeMessage(path.join(maildir, 'cur'), m * 10_000 + i, vmail);
  }
  console.log(
    `seeded ${USERS.toLocaleString('en')} users and ${MESSAGES.toLocaleString('en')} messages in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
  );
  await host.startAtrium();

  const rows: [string, string][] = [];
  const first = cli(['backup']);
  rows.push([`first backup: ${first.seconds.toFixed(1)} s`, first.line]);
  writeMessage(path.join(host.layout.mailRoot, org.id, 'user0', 'Maildir', 'cur'), 99_999_999, vmail);
  const second = cli(['backup']);
  rows.push([`second backup, one new message: ${second.seconds.toFixed(1)} s`, second.line]);
  const verify = cli(['backup', '--verify']);
  rows.push([`backup --verify: ${verify.seconds.toFixed(1)} s`, verify.line]);
  spawnSync(path.join(host.layout.initDir, 'atrium'), ['stop']);
  const restore = cli(['restore', '--force']);
  const ready = performance.now();
  await host.startAtrium();
  rows.push([
    `restore --force: ${restore.seconds.toFixed(1)} s, then ready in ${((performance.now() - ready) / 1000).toFixed(1)} s`,
    restore.line,
  ]);
  for (const [figure, line] of rows) console.log(`${figure}\n    ${line}`);
} finally {
  await host.close();
}
