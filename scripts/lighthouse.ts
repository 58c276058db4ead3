// Lighthouse scores of the built console, mobile and desktop: the real server on a fresh embedded
// database with a small organisation, audited by Debian's headless Chromium. Each page runs
// several times and the median is reported, since the machine is shared. Build first.
//   npm run build && npm run lighthouse [-- --runs 3] [--only /login,/dashboard] [--save DIR] [--form mobile]
//     [--users 3500]   (that many more people in the organisation, for /users at a customer's size)
// --save writes each run's full report (lhr JSON) to DIR, to see what a score is made of.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { type Flags } from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import { createUser } from '../apps/server/test/support/fixtures.ts';
import { startAcmeAtrium } from './acme-atrium.ts';

const CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const;
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;
const saveArg = process.argv.indexOf('--save');
const saveDir = saveArg > 0 ? path.resolve(process.argv[saveArg + 1]!) : undefined;
if (saveDir) mkdirSync(saveDir, { recursive: true });
let saved = 0;

if (!existsSync(path.resolve(import.meta.dirname, '../apps/console/dist/index.html'))) {
  throw new Error('Build the console first: npm run build');
}

const { atrium, origin, session, created } = await startAcmeAtrium();
async function call(url: string, payload: object) {
  const res = await atrium.app.inject({ method: 'POST', url, payload, headers: session.headers });
  if (res.statusCode >= 300) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`);
}
// A domain and a few people, so the dashboard shows what an organisation's does.
await call('/api/domains', { name: 'acme.example' });
for (const firstName of ['Grace', 'Alan', 'Barbara']) {
  const localPart = firstName.toLowerCase();
  await call('/api/users', {
    firstName,
    lastName: 'Example',
    localPart,
    domain: 'acme.example',
    credential: 'invitation',
  });
}

// An organisation of a customer's size for /users (issue 42 asks for 3,500 people).
const usersArg = process.argv.indexOf('--users');
const extraUsers = usersArg > 0 ? Number(process.argv[usersArg + 1]) : 0;
for (let i = 0; i < extraUsers; i++) {
  await createUser(atrium.db, created.organizationId, {
    email: `person${i}@acme.example`,
    firstName: `Person`,
    lastName: `N${String(i).padStart(4, '0')}`,
  });
}

// /login is reached the way a browser reaches it: through the sign-in start, which adds ?uid=.
const onlyArg = process.argv.indexOf('--only');
const allPages: { name: string; url: string; signedIn: boolean }[] = [
  { name: '/login', url: '/api/sso/start', signedIn: false },
  { name: '/dashboard', url: '/dashboard', signedIn: true },
  { name: '/application', url: '/application', signedIn: true },
  { name: '/users', url: '/users', signedIn: true },
];

const pages =
  onlyArg > 0 ? allPages.filter((p) => process.argv[onlyArg + 1]!.split(',').includes(p.name)) : allPages;

// A fresh browser profile for every run: cookies left by the sign-in page (its interaction and
// signed-out markers) would otherwise send the signed-in pages to sign in again.
const launchChrome = () =>
  chromeLauncher.launch({
    chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });

type Scores = Record<(typeof CATEGORIES)[number], number>;

async function audit(url: string, signedIn: boolean, formFactor: 'mobile' | 'desktop'): Promise<Scores> {
  const chrome = await launchChrome();
  const flags: Flags = {
    port: chrome.port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: [...CATEGORIES],
    extraHeaders: signedIn ? { Cookie: session.cookie } : undefined,
  };
  const result = await lighthouse(
    `${origin}${url}`,
    flags,
    formFactor === 'desktop' ? desktopConfig : undefined,
  ).finally(() => chrome.kill());
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  if (saveDir) {
    const name = `${++saved}-${formFactor}${url.replace(/\W+/g, '-')}.json`;
    writeFileSync(path.join(saveDir, name), JSON.stringify(result.lhr));
  }
  const { categories, runtimeError } = result.lhr;
  if (runtimeError) throw new Error(`${url}: ${runtimeError.code} ${runtimeError.message}`);
  // A signed-in page that lands on the sign-in screen would be measuring the wrong page.
  const landed = new URL(result.lhr.finalDisplayedUrl).pathname;
  if (signedIn && landed !== url)
    throw new Error(`${url} ended on ${landed}: the session cookie was not used`);
  // The metrics behind the performance score, to see what to work on.
  const metrics = ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'speed-index']
    .map((id) => `${id.replace(/-/g, ' ')} ${result.lhr.audits[id]?.displayValue ?? '?'}`)
    .join(', ');
  const failing = Object.values(result.lhr.audits)
    .filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== 'informative')
    .map((a) => a.id);
  console.error(`  ${formFactor} ${url}: ${metrics}; below 90: ${failing.join(' ') || 'none'}`);
  return Object.fromEntries(
    CATEGORIES.map((id) => [id, Math.round((categories[id]?.score ?? 0) * 100)]),
  ) as Scores;
}

// On a loaded machine Chromium sometimes misses DevTools' deadline; such a run is tried again.
async function withRetry<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= attempts) throw error;
      console.error(`  retrying after: ${(error as Error).message}`);
    }
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

try {
  const formArg = process.argv.indexOf('--form');
  const formFactors = (['mobile', 'desktop'] as const).filter(
    (f) => formArg < 0 || process.argv[formArg + 1] === f,
  );
  for (const formFactor of formFactors) {
    const rows: string[] = [];
    for (const page of pages) {
      const runs: Scores[] = [];
      for (let i = 0; i < RUNS; i++) {
        runs.push(await withRetry(() => audit(page.url, page.signedIn, formFactor)));
        console.error(`  ${formFactor} ${page.name} run ${i + 1}: ${JSON.stringify(runs.at(-1))}`);
      }
      const cells = CATEGORIES.map((id) => {
        const all = runs.map((r) => r[id]);
        return `${median(all)} (${all.join(', ')})`;
      });
      rows.push(`| ${page.name} | ${cells.join(' | ')} |`);
    }
    console.log(`\n${formFactor}: median of ${RUNS} runs (each run in brackets)\n`);
    console.log(`| page | ${CATEGORIES.join(' | ')} |`);
    console.log(`|---|${CATEGORIES.map(() => '---').join('|')}|`);
    console.log(rows.join('\n'));
  }
} finally {
  await atrium.close();
}
