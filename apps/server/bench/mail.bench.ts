// npm run bench -- mail
// What Postfix and Dovecot cost Atrium: socketmap lookups per second (mailbox hit and miss,
// domain hit, port 25's inbound signal once the organisation's first message is noted) and Dovecot dict userdb lookups per second, each over one connection as the daemons
// ask (one request at a time), in an organisation of 50,000 users beside another of 10,000; then
// messages per second through Debian's Postfix → LMTP → Dovecot (the mail tests' harness), from
// the first SMTP send until the queue is empty. PGlite by default; TEST_DATABASE_URL=postgres://…
// runs it on that server. Measures only; never fails on a figure.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { encodeNetstring, NetstringReader } from '../src/modules/mail/protocols/netstring.ts';
import { POSTFIX_MAPS } from '../src/modules/mail/lookups/postfix-maps.ts';
import { INBOUND_MAP } from '../src/modules/mail/lookups/inbound-mail.ts';
import { createMailWorld } from '../test/mail/mail-world.ts';
import { freePort } from '../test/support/free-port.ts';
import { testEnv } from '../test/support/test-app.ts';
import { createTestDatabase } from '../test/support/test-database.ts';
import { seedOrganizations, seedUsers } from './users-list-seed.ts';

const LOOKUPS = Number(process.env.BENCH_RUNS ?? 5_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);

/** One connection; each request waits for its answer, as Postfix's and Dovecot's clients do. */
async function asker(socket: Socket, framing: 'netstring' | 'line') {
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const reader = new NetstringReader();
  let pending = '';
  let waiting: ((answer: string) => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    let answers: string[];
    if (framing === 'netstring') answers = reader.push(chunk);
    else {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop()!;
      answers = lines;
    }
    for (const answer of answers) waiting?.(answer);
  });
  return (request: string) =>
    new Promise<string>((resolve) => {
      waiting = resolve;
      socket.write(framing === 'netstring' ? encodeNetstring(request) : `${request}\n`);
    });
}

async function rate(label: string, keys: string[], ask: (key: string) => Promise<string>, expect: RegExp) {
  for (const key of keys.slice(0, 50)) await ask(key);
  const started = performance.now();
  for (const key of keys) {
    const answer = await ask(key);
    if (!expect.test(answer)) throw new Error(`${label}: unexpected answer ${answer} for ${key}`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${label.padEnd(34)} ${Math.round(keys.length / seconds)
      .toLocaleString('en')
      .padStart(7)}/s  ` + `(${((seconds * 1000) / keys.length).toFixed(3)} ms each)`,
  );
}

const t = await createTestDatabase();
const socketmapPort = await freePort();
const dictSocket = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-bench-dict-')), 'dict.sock');
const config = loadConfig(
  testEnv({ MAIL_SOCKETMAP_ADDRESS: `127.0.0.1:${socketmapPort}`, MAIL_DICT_SOCKET: dictSocket }),
);
const app = await buildApp(config, { db: t.db });
await app.ready();
try {
  const database = t.url ? 'PostgreSQL' : 'PGlite';
  const [big, other] = await seedOrganizations(t.db, `mail-${randomBytes(3).toString('hex')}`, 2);
  await seedUsers(t.db, [big!], 50_000);
  await seedUsers(t.db, [other!], 10_000);
  await sql`insert into subscriptions (organization_id, plan_key, seats, status)
    select id, 'business', 100000, 'active' from organizations
    on conflict (organization_id) do nothing`.execute(t.db);
  const domain = `${big!.replaceAll('-', '')}.example.com`;
  await sql`insert into domains (organization_id, name, state, verification_token, dkim_private_key_enc, dkim_public_key)
    values (${big}, ${domain}, 'verified', 'token', 'sealed', 'public')`.execute(t.db);
  await sql`analyze`.execute(t.db);
  const { rows } = await sql<{ email: string }>`
    select email from users where organization_id = ${big} and status = 'active'
    order by random() limit ${LOOKUPS}`.execute(t.db);
  const hits = rows.map((r) => r.email);
  const misses = hits.map((email) => `nobody.${email}`);
  console.log(`${database}: 60,000 users; ${hits.length.toLocaleString('en')} lookups of each kind`);

  const postfix = await asker(connect(socketmapPort, '127.0.0.1'), 'netstring');
  await rate('socketmap mailbox, hit', hits, (k) => postfix(`${POSTFIX_MAPS.mailboxes} ${k}`), /^OK /);
  await rate(
    'socketmap mailbox, miss',
    misses,
    (k) => postfix(`${POSTFIX_MAPS.mailboxes} ${k}`),
    /^NOTFOUND/,
  );
  await rate(
    'socketmap domain, hit',
    hits.map(() => domain),
    (k) => postfix(`${POSTFIX_MAPS.domains} ${k}`),
    /^OK /,
  );
  // Asked for every recipient another server gives on port 25; the warm-up's first notes the time.
  await rate('socketmap inbound, noted', hits, (k) => postfix(`${INBOUND_MAP} ${k}`), /^OK DUNNO$/);
  const dovecot = await asker(connect(dictSocket), 'line');
  await rate('dict userdb (lmtp), hit', hits, (k) => dovecot(`Lshared/userdb/lmtp/${k}\t${k}`), /^O/);
} finally {
  await app.close();
  await t.drop();
}

// Delivery through the real servers: one SMTP connection, then until Postfix's queue is empty.
const world = await createMailWorld();
try {
  const user = await world.user();
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: world.mail.ports.smtp,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: 1,
    maxMessages: Infinity,
  });
  const started = performance.now();
  for (let i = 0; i < MESSAGES; i++) {
    await transport.sendMail({
      from: 'bench@example.net',
      to: user.email,
      subject: `Bench ${i}`,
      text: 'x'.repeat(2_000),
    });
  }
  transport.close();
  await world.mail.drainQueue(120_000);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `Postfix → LMTP → Dovecot: ${MESSAGES} messages in ${seconds.toFixed(1)} s, ` +
      `${(MESSAGES / seconds).toFixed(0)} messages/s`,
  );
} finally {
  await world.close();
}
