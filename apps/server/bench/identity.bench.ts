// Sign-in throughput on this machine, in one run (issue 3):
//  - Atrium: complete sign-in flows per second (authorize → password → e-mail code → resume → token)
//    and refresh grants per second, through the whole server (app.inject: routing, guard, provider,
//    database), PGlite by default or TEST_DATABASE_URL=postgres://… for PostgreSQL;
//  - the floors they are held against: argon2id verifications per second on one core, and the same
//    code-and-token flow and refresh grants on a bare oidc-provider, with its in-memory adapter and
//    with the simplest adapter on the same database as Atrium (bare-sql-adapter.ts), and that last
//    flow once more with one argon2id verification in its login step: the least any sign-in with a
//    password can cost on that database.
// Seconds per figure: BENCH_IDENTITY_SECONDS (default 5); concurrent flows: BENCH_IDENTITY_CONCURRENCY (4);
// BENCH_IDENTITY_ATRIUM_ONLY=1 measures Atrium alone (to profile it).
// Measures only; never fails on a figure.
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { verify } from '@node-rs/argon2';
import { inject, type DispatchFunc } from 'light-my-request';
import Provider, { type Adapter, type Configuration } from 'oidc-provider';
import { hashPassword } from '../src/lib/passwords.ts';
import type { MailMessage } from '../src/lib/mail.ts';
import { createOrganizationWithAdmin, createUser } from '../test/support/fixtures.ts';
import { createTestApp } from '../test/support/test-app.ts';
import { registerTestClient } from '../test/identity/support/clients.ts';
import { openBareDatabase } from './bare-sql-adapter.ts';
import { cpuPerOperationText, rate } from './operation-rate.ts';

const SECONDS = Number(process.env.BENCH_IDENTITY_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_IDENTITY_CONCURRENCY ?? 4);
const USER_POOL = 1_000;
const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'https://app.bench.test/cb';

type Send = (options: {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  payload?: string;
}) => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>;

/** A cookie jar over an inject function, from one client address. */
function client(send: Send, ip: string) {
  const jar = new Map<string, string>();
  return async (options: Parameters<Send>[0]) => {
    const headers: Record<string, string> = { ...options.headers, 'x-bench-ip': ip };
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await send({ ...options, headers });
    const set = res.headers['set-cookie'];
    for (const line of (Array.isArray(set) ? set : set ? [set] : []) as string[]) {
      const [pair = ''] = line.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  };
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};
const location = (res: { headers: Record<string, unknown> }) => {
  const value = res.headers.location;
  if (typeof value !== 'string') throw new Error('expected a redirect');
  const url = new URL(value, 'http://localhost:8080');
  return url.pathname + url.search;
};

/**
 * Milliseconds spent per step of the Atrium flow, to show where a sign-in's time goes, and the
 * event loop's CPU in them: that one is a step's own only with BENCH_IDENTITY_CONCURRENCY=1.
 */
const stepTotals = new Map<string, { ms: number; cpuMs: number; count: number }>();
/**
 * The codes e-mailed so far, by address, and the flows waiting for one: the mail queue delivers a
 * code just after the password step has answered, and a waiting flow goes on the moment it does.
 */
class CodeMailbox {
  private readonly codes = new Map<string, string>();
  private readonly waiting = new Map<string, (code: string) => void>();

  deliver(to: string, code: string): void {
    const waiter = this.waiting.get(to);
    if (waiter) {
      this.waiting.delete(to);
      waiter(code);
    } else this.codes.set(to, code);
  }

  forget(email: string): void {
    this.codes.delete(email);
  }

  next(email: string): Promise<string> {
    const code = this.codes.get(email);
    if (code !== undefined) {
      this.codes.delete(email);
      return Promise.resolve(code);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no code was e-mailed to ${email}`)), 10_000);
      this.waiting.set(email, (mailed) => {
        clearTimeout(timer);
        resolve(mailed);
      });
    });
  }
}

async function timed<T>(step: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const cpu = process.threadCpuUsage();
  try {
    return await work();
  } finally {
    const used = process.threadCpuUsage(cpu);
    const total = stepTotals.get(step) ?? { ms: 0, cpuMs: 0, count: 0 };
    total.ms += performance.now() - start;
    total.cpuMs += (used.user + used.system) / 1000;
    total.count++;
    stepTotals.set(step, total);
  }
}

function tokenRequest(clientId: string, secret: string, form: Record<string, string>) {
  return {
    method: 'POST',
    url: '/oidc/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
    },
    payload: new URLSearchParams(form).toString(),
  };
}

// ---- Atrium -------------------------------------------------------------------------------------
async function benchAtrium() {
  const codes = new CodeMailbox();
  // Only the sign-in code's message carries a secret; the "new sign-in" notice does not.
  const deliverMail = async (m: MailMessage) => {
    if (m.secretForOutboxLog) codes.deliver(m.to, m.secretForOutboxLog);
  };
  const t = await createTestApp({ deps: { deliverMail } });
  try {
    const passwordHash = await hashPassword(PASSWORD);
    const org = await createOrganizationWithAdmin(t.db);
    const rp = await registerTestClient(t.db, t.config, { organizationId: org.id, redirectUri: REDIRECT });
    // Every flow signs in a different user, as a busy morning does: one account gets at most
    // 6 codes an hour, so a few accounts signing in again and again would be refused.
    const users: { email: string }[] = [];
    for (let i = 0; i < USER_POOL; i++) users.push(await createUser(t.db, org.id, { passwordHash }));
    // Each simulated browser has its own address, as real users do (per-address limits apply).
    const send: Send = (o) =>
      t.app.inject({ ...o, method: (o.method ?? 'GET') as 'GET', remoteAddress: o.headers?.['x-bench-ip'] });
    let flowNo = 0;
    const refreshTokens: string[] = [];

    const signIn = async () => {
      const n = ++flowNo;
      const { email } = users[n % users.length]!;
      const browser = client(send, `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`);
      const { verifier, challenge } = pkce();
      const auth = await timed('authorize', () =>
        browser({
          url: `/oidc/auth?${new URLSearchParams({ client_id: rp.clientId, response_type: 'code', scope: 'openid email', redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's' })}`,
        }),
      );
      // The provider sends a browser nobody is signed in on straight to /login?uid=….
      const uid = new URL(location(auth), 'http://x').searchParams.get('uid')!;
      const json = { 'content-type': 'application/json' };
      codes.forget(email);
      const pw = await timed('password', () =>
        browser({
          method: 'POST',
          url: `/api/interactions/${uid}/password`,
          headers: json,
          payload: JSON.stringify({ email, password: PASSWORD }),
        }),
      );
      if (pw.statusCode !== 200) throw new Error(`password step: ${pw.body}`);
      const mailed = await codes.next(email);
      const done = await timed('code', () =>
        browser({
          method: 'POST',
          url: `/api/interactions/${uid}/code`,
          headers: json,
          payload: JSON.stringify({ code: mailed }),
        }),
      );
      if (done.statusCode !== 200) throw new Error(`code step: ${done.body}`);
      const resumed = await timed('resume', () =>
        browser({
          url: location({ headers: { location: JSON.parse(done.body).redirectTo } }),
        }),
      );
      const code = new URL(String(resumed.headers.location)).searchParams.get('code');
      if (!code) throw new Error(`no code: ${String(resumed.headers.location)}`);
      const tokens = await timed('token', () =>
        browser(
          tokenRequest(rp.clientId, rp.clientSecret, {
            grant_type: 'authorization_code',
            code,
            redirect_uri: REDIRECT,
            code_verifier: verifier,
          }),
        ),
      );
      const refresh = JSON.parse(tokens.body).refresh_token as string;
      if (!refresh) throw new Error(`token: ${tokens.body}`);
      refreshTokens.push(refresh);
    };
    const signIns = await rate(
      Array.from({ length: CONCURRENCY }, () => signIn),
      SECONDS,
      'sign-in',
    );

    const chains = refreshTokens.slice(-CONCURRENCY);
    let refreshNo = 0;
    const refreshes = await rate(
      chains.map((_, i) => async () => {
        // Many app back ends, as in production, rather than one address's rate limit.
        const n = ++refreshNo;
        const ip = `10.200.${(n >> 8) & 255}.${n & 255}`;
        const request = tokenRequest(rp.clientId, rp.clientSecret, {
          grant_type: 'refresh_token',
          refresh_token: chains[i]!,
        });
        const res = await send({ ...request, headers: { ...request.headers, 'x-bench-ip': ip } });
        const next = JSON.parse(res.body).refresh_token as string | undefined;
        if (!next) throw new Error(`refresh: ${res.body}`);
        chains[i] = next;
      }),
      SECONDS,
      'refresh grant',
    );
    return { signIns, refreshes, database: t.database.url ? 'PostgreSQL' : 'PGlite' };
  } finally {
    await t.close();
  }
}

// ---- argon2id on one core ----------------------------------------------------------------------
async function benchArgon2() {
  const hash = await hashPassword(PASSWORD);
  // One verification at a time: one core's worth, whatever the thread pool size.
  return rate([() => verify(hash, PASSWORD.normalize('NFKC')).then(() => undefined)], SECONDS);
}

// ---- bare oidc-provider: in-memory adapter, or the simplest one on a database -------------------
/**
 * With `passwordHash`, its login step first verifies the password against it, as any login form
 * must: the flow is then the least a sign-in with argon2id can cost on that database, and only
 * flows are measured.
 */
async function benchBareProvider(adapter?: new (name: string) => Adapter, passwordHash?: string) {
  const secret = 'bench-secret-bench-secret-bench-secret';
  const configuration: Configuration = {
    ...(adapter ? { adapter } : {}),
    clients: [
      {
        client_id: 'bench',
        client_secret: secret,
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, email: `${sub}@bench.test` }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    cookies: { keys: ['bench-cookie-key'] },
    rotateRefreshToken: true,
    issueRefreshToken: (_ctx, c) => c.grantTypeAllowed('refresh_token'),
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId,
      });
      grant.addOIDCScope(String(ctx.oidc.params!.scope));
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider('http://localhost:8080/oidc', configuration);
  const callback = provider.callback();
  // The login step a bare provider needs: finish the interaction as user-1, no code.
  const dispatch: DispatchFunc = (req, res) => {
    if (req.url!.startsWith('/interaction/')) {
      void (passwordHash ? verify(passwordHash, PASSWORD.normalize('NFKC')) : Promise.resolve(true))
        .then(() => provider.interactionResult(req, res, { login: { accountId: 'user-1' } }))
        .then((to) => {
          res.statusCode = 303;
          res.setHeader('location', to);
          res.end();
        });
      return;
    }
    req.url = req.url!.replace(/^\/oidc/, '') || '/';
    void callback(req, res);
  };
  const send: Send = async (o) => {
    const res = await inject(dispatch, {
      ...o,
      method: (o.method ?? 'GET') as 'GET',
      headers: { host: 'localhost:8080', ...o.headers },
    });
    return { statusCode: res.statusCode, headers: res.headers, body: res.body };
  };
  const refreshTokens: string[] = [];
  const flow = async () => {
    const browser = client(send, '');
    const { verifier, challenge } = pkce();
    const auth = await browser({
      url: `/oidc/auth?${new URLSearchParams({ client_id: 'bench', response_type: 'code', scope: 'openid email', redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's' })}`,
    });
    const finished = await browser({ url: location(auth) });
    const resumed = await browser({ url: location(finished) });
    const code = new URL(String(resumed.headers.location)).searchParams.get('code');
    if (!code) throw new Error(`bare: no code: ${String(resumed.headers.location)}`);
    const tokens = await browser(
      tokenRequest('bench', secret, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }),
    );
    const refresh = JSON.parse(tokens.body).refresh_token as string;
    if (!refresh) throw new Error(`bare token: ${tokens.body}`);
    refreshTokens.push(refresh);
  };
  const flows = await rate(
    Array.from({ length: CONCURRENCY }, () => flow),
    SECONDS,
    passwordHash ? 'bare flow with argon2id (one table)' : undefined,
  );
  if (passwordHash) return { flows, refreshes: Number.NaN };
  const chains = refreshTokens.slice(-CONCURRENCY);
  const refreshes = await rate(
    chains.map((_, i) => async () => {
      const res = await send(
        tokenRequest('bench', secret, { grant_type: 'refresh_token', refresh_token: chains[i]! }),
      );
      const next = JSON.parse(res.body).refresh_token as string | undefined;
      if (!next) throw new Error(`bare refresh: ${res.body}`);
      chains[i] = next;
    }),
    SECONDS,
    `bare refresh grant (${adapter ? 'one table' : 'in memory'})`,
  );
  return { flows, refreshes };
}

const f = (n: number) => n.toFixed(1).padStart(8);
const ratio = (n: number, floor: number) => (n / floor).toFixed(3);
const steps = () =>
  [...stepTotals]
    .map(([step, t]) => {
      const cpu = CONCURRENCY === 1 ? ` (event loop CPU ${(t.cpuMs / t.count).toFixed(2)} ms)` : '';
      return `${step} ${(t.ms / t.count).toFixed(1)} ms${cpu}`;
    })
    .join(', ');
// The benchmark's own client (inject, cookies) is in these too; the database server's CPU is not.
// Held against each other they show what Atrium costs beyond the bare provider on this machine.
if (process.env.BENCH_IDENTITY_ATRIUM_ONLY) {
  // For a profile of Atrium alone (node --cpu-prof): no floors.
  const atrium = await benchAtrium();
  console.log(
    `Atrium on ${atrium.database}: ${f(atrium.signIns)} sign-ins/s, ${f(atrium.refreshes)} refresh grants/s`,
  );
  console.log(`Atrium sign-in, mean time per step: ${steps()}`);
  console.log(`process CPU (all threads): ${cpuPerOperationText()}`);
  process.exit(0);
}
const argon2 = await benchArgon2();
const bare = await benchBareProvider();
const bareDb = await openBareDatabase();
const bareSql = await benchBareProvider(bareDb.adapter);
const bareSqlArgon2 = await benchBareProvider(bareDb.adapter, await hashPassword(PASSWORD)).finally(() =>
  bareDb.close(),
);
const atrium = await benchAtrium();
console.log(`concurrency ${CONCURRENCY}, ${SECONDS} s per figure, Atrium on ${atrium.database}`);
console.log(`argon2id verifications/s, one core          ${f(argon2)}`);
console.log(`bare oidc-provider code+token flows/s        ${f(bare.flows)}   (in memory)`);
console.log(`bare oidc-provider refresh grants/s          ${f(bare.refreshes)}   (in memory)`);
console.log(`bare oidc-provider code+token flows/s        ${f(bareSql.flows)}   (${bareDb.kind}, one table)`);
console.log(
  `bare oidc-provider refresh grants/s          ${f(bareSql.refreshes)}   (${bareDb.kind}, one table)`,
);
console.log(
  `bare flows/s with one argon2id verification  ${f(bareSqlArgon2.flows)}   (${bareDb.kind}, one table) = ${(bareSqlArgon2.flows / argon2).toFixed(2)} × argon2id floor`,
);
console.log(
  `Atrium complete sign-in flows/s              ${f(atrium.signIns)}   = ${(atrium.signIns / argon2).toFixed(2)} × argon2id floor, ${ratio(atrium.signIns, bare.flows)} × bare flow, ${ratio(atrium.signIns, bareSql.flows)} × bare flow on ${bareDb.kind}, ${ratio(atrium.signIns, bareSqlArgon2.flows)} × bare flow with argon2id`,
);
console.log(
  `Atrium refresh grants/s                      ${f(atrium.refreshes)}   = ${ratio(atrium.refreshes, bare.refreshes)} × bare refresh, ${ratio(atrium.refreshes, bareSql.refreshes)} × bare refresh on ${bareDb.kind}`,
);
console.log(`Atrium sign-in, mean time per step: ${steps()}`);
console.log(`process CPU (all threads): ${cpuPerOperationText()}`);
