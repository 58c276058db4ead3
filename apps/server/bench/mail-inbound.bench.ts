// npm run bench -- mail-inbound
// What rspamd costs mail from other servers: messages per second Postfix accepts on port 25
// (from the first connection until the last message's 250 after its data), with 2 KB and 100 KB
// messages, first without a milter, then with rspamd (and Redis) as Postfix's milter exactly as
// mail-config writes it; and the memory rspamd's processes and Redis hold afterwards (RSS summed
// over processes, and PSS, which shares the pages they share). The senders are "other servers"
// (XCLIENT from an address with forward and reverse DNS and SPF, a loopback DNS server), a few
// connections at once as a sending server opens them. PGlite by default; TEST_DATABASE_URL runs
// it on PostgreSQL. Measures only; never fails on a figure.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { spawnSync } from 'node:child_process';
import { createMailWorld, type MailWorld } from '../test/mail/mail-world.ts';
import { TestDnsServer } from '../test/support/dns-server.ts';
import { TestRspamd } from '../test/support/rspamd-servers.ts';
import { smtpDeliver } from '../test/support/smtp-dialog.ts';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);
const LARGE_MESSAGES = Number(process.env.BENCH_LARGE_MESSAGES ?? Math.max(20, Math.round(MESSAGES / 4)));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const SERVER = { addr: '203.0.113.7', name: 'mx.sender.example.net', helo: 'mx.sender.example.net' };
const SENDER = 'news@sender.example.org';

const WORDS =
  'the quarterly figures attached show revenue growth across every region and the board will review the plan on thursday morning before lunch'.split(
    ' ',
  );

/** A plain-text message of about `bytes`, different each time (rspamd hashes bodies). */
function message(to: string, bytes: number, n: number): string {
  const lines: string[] = [];
  let size = 0;
  let i = n;
  while (size < bytes) {
    const line = Array.from({ length: 12 }, () => WORDS[i++ % WORDS.length]).join(' ');
    lines.push(line);
    size += line.length + 2;
  }
  return [
    `From: Newsletter <${SENDER}>`,
    `To: <${to}>`,
    `Subject: Figures ${n}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <bench-${n}-${Date.now()}@sender.example.org>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Message ${n}`,
    ...lines,
    '',
  ].join('\n');
}

/**
 * Recipients in turn: the mail tests' plan gives each mailbox 1 MiB, which 100 KB messages to one
 * person would fill (Postfix then refuses at RCPT, 552).
 */
async function acceptRate(
  world: MailWorld,
  recipients: string[],
  label: string,
  bytes: number,
  count: number,
  xclient: boolean,
) {
  const bodies = Array.from({ length: count }, (_, n) => {
    const to = recipients[n % recipients.length]!;
    return { to, data: message(to, bytes, n + bytes) };
  });
  let next = 0;
  const refused: string[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < bodies.length) {
        const { to, data } = bodies[next++]!;
        const reply = await smtpDeliver({
          port: world.mail.ports.smtp,
          ...(xclient ? { client: SERVER } : {}),
          from: SENDER,
          to,
          data,
        });
        if (reply.code !== 250) refused.push(`${reply.stage} ${reply.code} ${reply.text}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${label.padEnd(26)} ${String(count).padStart(4)} × ${bytes >= 1024 ? `${bytes / 1024} KB` : `${bytes} B`}: ` +
      `${(count / seconds).toFixed(1).padStart(6)} messages/s accepted (${((seconds * 1000) / count).toFixed(1)} ms each)` +
      (refused.length > 0 ? `; ${refused.length} refused, first: ${refused[0]}` : ''),
  );
  await world.mail.drainQueue(300_000);
}

/** Resident and proportional memory (KiB) of a process and its children, from /proc. */
function memoryOf(pid: number | undefined): { rss: number; pss: number } {
  if (!pid) return { rss: 0, pss: 0 };
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number);
  let rss = 0;
  let pss = 0;
  for (const p of [pid, ...children]) {
    try {
      const rollup = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return { rss, pss };
}

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

const dns = await TestDnsServer.start();
dns.set(SERVER.name, { A: [SERVER.addr] });
dns.set('sender.example.org', { TXT: [`v=spf1 ip4:${SERVER.addr} -all`], A: [SERVER.addr] });
dns.set('_dmarc.sender.example.org', { TXT: ['v=DMARC1; p=none'] });
const database = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
console.log(`${database}; ${CONNECTIONS} connections at once; accepted = the 250 after the data`);
try {
  for (const withRspamd of [false, true]) {
    const rspamd = withRspamd ? await TestRspamd.prepare({ dnsServer: dns.address }) : undefined;
    const world = await createMailWorld({
      env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '500' },
      ...(rspamd ? { rspamd } : {}),
    });
    try {
      const recipients: string[] = [];
      for (let i = 0; i < 25; i++) recipients.push((await world.user()).email);
      const label = withRspamd ? 'with rspamd (milter)' : 'without a milter';
      // A first few to warm the daemons (and rspamd's caches) up.
      await acceptRate(world, recipients, `${label} (warm-up)`, 2048, 10, withRspamd);
      await acceptRate(world, recipients, label, 2048, MESSAGES, withRspamd);
      await acceptRate(world, recipients, label, 100 * 1024, LARGE_MESSAGES, withRspamd);
      if (rspamd) {
        const memory = rspamd.processes();
        const r = memoryOf(memory.rspamd);
        const redis = memoryOf(memory.redis);
        const stat = await rspamd.stat();
        console.log(
          `memory after the run: rspamd ${mb(r.rss)} RSS over its processes (${mb(r.pss)} PSS), ` +
            `Redis ${mb(redis.rss)} RSS (${mb(redis.pss)} PSS); rspamd scanned ${stat.scanned}`,
        );
      } else {
        console.log('memory: no rspamd and no Redis running (0 MB)');
      }
    } finally {
      await world.close();
    }
  }
} finally {
  await dns.close();
}
