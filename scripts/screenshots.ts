// Screenshots of the console at the four widths of DESIGN.md (375, 768, 1000, 1280), for people
// to look at: the real server on a fresh embedded database with a small organisation in it,
// driven by Playwright on Debian's Chromium. Writes screenshots/<width>-<page>.png.
//   npm run screenshots [-- page-name ...]
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { createOrganization } from '../apps/server/src/modules/organizations/create-organization.ts';
import { signInAs } from '../apps/server/test/support/fixtures.ts';
import { insertSetupRecord, saveSetupRecord } from '../apps/server/src/modules/setup/setup.repository.ts';
import { startAcmeAtrium } from './acme-atrium.ts';

const WIDTHS = [375, 768, 1000, 1280] as const;
const out = path.resolve(import.meta.dirname, '../screenshots');
const only = process.argv.slice(2);

const { atrium, origin, created, admin, session } = await startAcmeAtrium();

async function call(method: 'POST' | 'GET', url: string, payload?: unknown) {
  const res = await atrium.app.inject({ method, url, payload: payload as object, headers: session.headers });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

// A little of everything, through the API as an admin would make it.
const domain = await call('POST', '/api/domains', { name: 'acme.example' });
const team = await call('POST', '/api/groups', { name: 'Engineering' });
const people = [
  ['Grace', 'Hopper'],
  ['Alan', 'Turing'],
  ['Katherine', 'Johnson'],
  ['Edsger', 'Dijkstra'],
  ['Barbara', 'Liskov'],
] as const;
const userIds: string[] = [];
for (const [firstName, lastName] of people) {
  const added = await call('POST', '/api/users', {
    firstName,
    lastName,
    localPart: firstName.toLowerCase(),
    domain: 'acme.example',
    groupIds: [team.id ?? team.group?.id].filter(Boolean),
    credential: 'invitation',
  });
  userIds.push(added.user.id);
}
const domainId: string = domain.id ?? domain.domain?.id;
// Verified ones too (primary, and one that could be), so the list shows every kind of row.
await atrium.db
  .insertInto('domains')
  .values(
    ['acme-holdings.example', 'mail.acme-international-group.example'].map((name, index) => ({
      organization_id: created.organizationId,
      name,
      state: 'verified' as const,
      is_primary: index === 0,
      verified_at: new Date(),
      verification_token: `screenshots${index}`.padEnd(32, 'x'),
      dkim_private_key_enc: 'sealed',
      dkim_public_key: 'public',
    })),
  )
  .execute();

// A second organisation halfway through the setup wizard: domain added, verification and users
// skipped, now choosing apps.
const wizardOrg = await createOrganization(atrium.db, atrium.config, {
  name: 'Globex Corporation',
  siteName: 'globex',
  admin: { email: 'hank@globex.example', firstName: 'Hank', lastName: 'Scorpio', passwordHash: null },
});
await atrium.db
  .insertInto('domains')
  .values({
    organization_id: wizardOrg.organizationId,
    name: 'globex.example',
    state: 'pending',
    verification_token: 'screenshots'.padEnd(32, 'x'),
    dkim_private_key_enc: 'sealed',
    dkim_public_key: 'public',
  })
  .execute();
await insertSetupRecord(atrium.db, wizardOrg.organizationId);
await saveSetupRecord(atrium.db, wizardOrg.organizationId, {
  currentStep: 'apps',
  done: ['profile'],
  skipped: ['verify', 'users'],
});
const wizardSession = await signInAs(atrium.db, {
  id: wizardOrg.adminUserId,
  email: 'hank@globex.example',
  organizationId: wizardOrg.organizationId,
});

// Two app passwords on the admin's profile, one of them used by a mail client.
await call('POST', '/api/profile/app-passwords', { name: 'Phone mail app' });
await call('POST', '/api/profile/app-passwords', { name: 'Thunderbird on the office laptop' });
await atrium.db
  .updateTable('app_passwords')
  .set({ last_used_at: new Date() })
  .where('name', '=', 'Phone mail app')
  .execute();

// A finished import on the Data Migration page: Google Workspace's export, one row in error.
const importCsv = [
  'First Name [Required],Last Name [Required],Email Address [Required],Password [Required],Org Unit Path [Required]',
  'Margaret,Hamilton,margaret@acme.example,****,/Engineering',
  'Linus,Torvalds,linus@acme.example,****,/Engineering',
  'Radia,Perlman,radia@acme.example,****,/',
  'Grace,Hopper,grace@acme.example,****,/Research',
  'Weak,Password,weak@acme.example,password,/',
].join('\n');
const importRes = await atrium.app.inject({
  method: 'POST',
  url: '/api/migration/user-imports?fileName=google-users.csv',
  payload: importCsv,
  headers: { ...session.headers, 'content-type': 'text/csv' },
});
if (importRes.statusCode !== 202) throw new Error(`import: ${importRes.statusCode} ${importRes.body}`);
await atrium.app.jobs.drain();

// Mail migrations as the page lists them: finished (twice run), copying, refused by the old provider.
const mailJob = (index: number, email: string) => ({
  organization_id: created.organizationId,
  user_id: userIds[index]!,
  target_email: email,
  source_host: 'imap.oldmail.example',
  source_port: 993,
  source_tls: 'tls' as const,
  source_login: email.replace('acme.example', 'oldmail.example'),
  started_by: admin.id,
  started_by_label: 'Ada Lovelace',
});
await atrium.db
  .insertInto('mail_migrations')
  .values([
    {
      ...mailJob(0, 'grace@acme.example'),
      status: 'done',
      runs: 2,
      messages_total: 1284,
      messages_done: 1284,
      bytes_total: 96_400_000,
      bytes_done: 96_400_000,
      finished_at: new Date(),
    },
    {
      ...mailJob(1, 'alan@acme.example'),
      status: 'running',
      messages_total: 5210,
      messages_done: 2032,
      bytes_total: 412_000_000,
      bytes_done: 171_500_000,
      source_password_enc: 'sealed',
    },
    {
      ...mailJob(2, 'katherine@acme.example'),
      status: 'failed',
      error:
        'The old provider refused the login for katherine@oldmail.example at imap.oldmail.example. Check the login and the password (or app password), and that IMAP is turned on there.',
      finished_at: new Date(),
    },
  ])
  .execute();
const graceJob = await atrium.db
  .selectFrom('mail_migrations')
  .select('id')
  .where('target_email', '=', 'grace@acme.example')
  .executeTakeFirstOrThrow();
await atrium.db
  .insertInto('mail_migration_folders')
  .values(
    (
      [
        ['INBOX', 'INBOX', 1032, null],
        ['Sent Items', 'Sent', 211, null],
        ['Projects/2026', 'Projects.2026', 41, null],
        ['Shared/Board', 'Shared.Board', 0, 'Shared/Board: Mailbox doesn’t exist: Shared/Board'],
      ] as const
    ).map(([source, target, copied, error]) => ({
      migration_id: graceJob.id,
      source_path: source,
      target_path: target,
      uid_validity: 1,
      last_uid: copied,
      messages_copied: copied,
      error,
    })),
  )
  .execute();

const dryRunCsv = Buffer.from(
  [
    'First name,Last name,E-mail,Groups,Password',
    'Margaret,Hamilton,margaret@acme.example,Engineering,',
    'Tim,Berners-Lee,tim@acme.example,Engineering; Research,',
    'Weak,Password,weak@acme.example,,password',
    'Hank,Scorpio,hank@globex.example,,',
    'Tim,Again,tim@acme.example,,',
    'Frances,Allen,frances@acme.example,Research,',
  ].join('\n'),
);

const pages: [name: string, url: string][] = [
  ['dashboard', '/dashboard'],
  ['organization', '/organization'],
  ['domains', '/domain'],
  ['add-domain', '/addomain'],
  ['verify-domain', `/d-verify?id=${domainId}`],
  ['users', '/users'],
  ['add-user', '/adduser'],
  ['groups', '/groups'],
  ['apps', '/apps'],
  ['apps-catalog', '/apps/catalog'],
  ['app-install', '/apps/install/wiki'],
  ['activity', '/activity'],
  ['data-migration', '/data-migration'],
  ['subscriptions', '/subscriptions'],
  ['mail-settings', '/mail-settings'],
  ['notifications', '/notifications'],
  ['profile', '/profile'],
  ['application', '/application'],
  ['not-found', '/404'],
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
mkdirSync(out, { recursive: true });

async function shoot(page: Page, width: number, name: string) {
  if (only.length && !only.includes(name)) return;
  await page.waitForLoadState('networkidle');
  // A viewport as tall as the page rather than a full-page capture: the capture's resizing makes
  // the fixed sidebar animate mid-shot. Then let the layout's transitions finish.
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width, height: Math.max(800, Math.min(height, 4000)) });
  await page.waitForTimeout(600);
  await page.screenshot({ path: path.join(out, `${width}-${name}.png`) });
  await page.setViewportSize({ width, height: 800 });
}

for (const width of WIDTHS) {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  const [name, value] = session.cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: origin, httpOnly: true, sameSite: 'Lax' }]);
  const page = await context.newPage();
  for (const [pageName, url] of pages) {
    await page.goto(`${origin}${url}`);
    await shoot(page, width, pageName);
  }
  // The open states: the drawer or the profile panel, and the search box.
  await page.goto(`${origin}/dashboard`);
  await page.waitForLoadState('networkidle');
  if (width < 992) await page.getByRole('button', { name: 'Navigation menu' }).click();
  else await page.getByRole('button', { name: 'Open profile panel' }).click();
  await shoot(page, width, width < 992 ? 'drawer' : 'profile-panel');
  await page.keyboard.press('Escape');
  // The sidebar alone (on narrow screens the open drawer), with its Apps entry.
  await page.goto(`${origin}/apps`);
  await page.waitForLoadState('networkidle');
  if (width < 992) await page.getByRole('button', { name: 'Navigation menu' }).click();
  await shoot(page, width, 'sidebar');
  await page.keyboard.press('Escape');
  await page.goto(`${origin}/users`);
  await page.getByRole('button', { name: 'Open search' }).click();
  await page.getByPlaceholder('Search . . .').fill('do');
  await shoot(page, width, 'search');
  // Pages and the server's finds under their headings, the second result active (ArrowDown).
  await page.getByPlaceholder('Search . . .').fill('a');
  await page.getByRole('group', { name: 'Users' }).waitFor();
  await page.getByPlaceholder('Search . . .').press('ArrowDown');
  await page.getByPlaceholder('Search . . .').press('ArrowDown');
  await shoot(page, width, 'search-results');
  // A dry run with errors, as the admin reads it before importing.
  await page.goto(`${origin}/data-migration`);
  await page
    .getByLabel('CSV file')
    .setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: dryRunCsv });
  await page.getByRole('button', { name: 'Check the file' }).click();
  await page.getByTestId('dry-run').waitFor();
  await shoot(page, width, 'data-migration-dry-run');
  // A mail migration's folders, one of them in error.
  await page.goto(`${origin}/data-migration`);
  await page.getByRole('button', { name: 'Folders' }).first().click();
  await page.getByRole('region', { name: 'Folders of grace@acme.example' }).waitFor();
  await shoot(page, width, 'data-migration-folders');

  const wizard = await browser.newContext({ viewport: { width, height: 800 } });
  const [wizardName, wizardValue] = wizardSession.cookie.split('=') as [string, string];
  await wizard.addCookies([
    { name: wizardName, value: wizardValue, url: origin, httpOnly: true, sameSite: 'Lax' },
  ]);
  const wizardPage = await wizard.newPage();
  await wizardPage.goto(`${origin}/setup`);
  await shoot(wizardPage, width, 'setup-skipped');
  await wizard.close();

  // The shared confirmation dialog, as suspending a user opens it.
  await page.goto(`${origin}/users/${userIds[0]}`);
  await page.getByRole('button', { name: 'Suspend', exact: true }).click();
  await page.getByRole('dialog').waitFor();
  await shoot(page, width, 'confirm-suspend');

  const visitor = await browser.newContext({ viewport: { width, height: 800 } });
  const signedOut = await visitor.newPage();
  await signedOut.goto(`${origin}/api/sso/start`);
  await shoot(signedOut, width, 'login');
  await signedOut.goto(`${origin}/signup`);
  await shoot(signedOut, width, 'signup');
  await signedOut.goto(`${origin}/forgot-password`);
  await shoot(signedOut, width, 'forgot-password');
  await visitor.close();
  await context.close();
}

await browser.close();
await atrium.close();
console.log(`Screenshots in ${path.relative(process.cwd(), out)}/`);
