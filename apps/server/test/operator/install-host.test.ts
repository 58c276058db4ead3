import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { MailDomainsResponse } from '@atrium/contracts/mail-settings';
import { chromium } from '@playwright/test';
import { ImapFlow } from 'imapflow';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestBrowser } from '../identity/support/browser.ts';
import { leavesProviderAndApi } from '../identity/support/sign-in.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { Mailbox } from '../support/mailbox.ts';
import { sendTo, submitUntilAccepted } from './host-mail.ts';
import { InstalledHost } from './installed-host.ts';

// The operator's path, end to end: `install --root DIR` on a fresh root, the daemons started
// from the files it wrote (Atrium by its init script as user atrium, OpenDKIM as opendkim with
// RequireSafeKeys on), then an organisation signs up through the API, verifies its domain
// against a DNS server on loopback, receives mail on port 25, reads it over IMAP with an app
// password, and submits on 587 a message whose DKIM signature verifies.

const PASSWORD = 'correct horse battery staple';
/** As the browser tests start Debian's Chromium (apps/console/playwright.config.ts). */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let host: InstalledHost;
let dns: TestDnsServer;
let outbox: Mailbox;
let firstInstall: ReturnType<InstalledHost['install']>;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  outbox = await Mailbox.start();
  host = await InstalledHost.create();
  firstInstall = host.install();
  if (firstInstall.status !== 0) throw new Error(`install failed:\n${firstInstall.output}`);
  // The operator's own settings: where Atrium sends its mail (codes) and which resolver it asks.
  host.addSettings({ SMTP_URL: outbox.url, DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '1000' });
  // Atrium writes OpenDKIM's tables at start; the sync copies them before OpenDKIM reads them.
  await host.startAtrium();
  host.syncDkim();
  await host.startMail();
}, 180_000);

afterAll(async () => {
  await host?.close();
  await outbox?.close();
  await dns?.close();
});

describe('install --root', () => {
  it('reports what it did and the DNS records to publish', () => {
    expect(firstInstall.stdout).toContain(`link ${host.layout.current}`);
    expect(firstInstall.stdout).toContain('Publish these DNS records');
    expect(firstInstall.stdout).toMatch(/\*\.atrium\.test\.\s+CNAME/);
    expect(firstInstall.stdout).toContain('Under --root nothing is started');
  });

  it('a second run changes nothing and says so, keeping the operator’s own settings', () => {
    const again = host.install();
    expect(again.status, again.output).toBe(0);
    expect(again.stdout).toContain('No changes: this host is as install leaves it.');
    const dry = host.install(['--dry-run']);
    expect(dry.stdout).toContain('No changes');
    // The operator's relay stays: install wrote the host's Postfix only on the first run.
    expect(readFileSync(host.layout.settingsFile, 'utf8')).toContain(`\nSMTP_URL=${outbox.url}\n`);
  });

  it('gives each directory the owner and mode its daemon accepts', () => {
    const modeOf = (p: string) => (statSync(host.at(p)).mode & 0o7777).toString(8);
    expect(modeOf('etc/atrium/atrium.env')).toBe('640');
    expect(modeOf('var/lib/atrium/data')).toBe('700');
    expect(modeOf('etc/opendkim/atrium')).toBe('700');
    expect(modeOf('etc/dovecot/atrium-oauth2-password.conf.ext')).toBe('600');
    expect(modeOf('etc/dovecot/atrium-master-users')).toBe('640');
    expect(modeOf('run/atrium')).toBe('750');
  });

  it('writes systemd units that systemd-analyze verify accepts', () => {
    const units = readdirSync(host.layout.systemdDir).map((u) => path.join(host.layout.systemdDir, u));
    expect(units.map((u) => path.basename(u)).sort()).toEqual([
      'atrium-backup.service',
      'atrium-backup.timer',
      'atrium-dkim.path',
      'atrium-dkim.service',
      'atrium.service',
    ]);
    // Without --root: the units name their files by absolute paths, which are below the root.
    const verify = spawnSync('systemd-analyze', ['verify', ...units], {
      encoding: 'utf8',
    });
    expect(verify.status, `${verify.stdout}${verify.stderr}`).toBe(0);
    expect(verify.stderr.trim()).toBe('');
  });
});

describe('the installed host', () => {
  const domain = `m${randomBytes(4).toString('hex')}.example.com`;
  const admin = `ada@${domain}`;
  const siteName = `host${randomBytes(3).toString('hex')}`;
  const browser = () => new TestBrowser(host.publicUrl);
  let adminBrowser: TestBrowser;
  let appPassword: string;
  /** The console's requests: its session cookie and, for writes, the session's CSRF token. */
  let csrf: Record<string, string> = {};
  const call = async (url: string, body?: unknown) => {
    const hop = await adminBrowser.request(
      url,
      body === undefined ? { headers: csrf } : { json: body, headers: csrf },
    );
    expect(hop.status, `${url}: ${hop.body}`).toBeLessThan(300);
    return hop.body ? (JSON.parse(hop.body) as Record<string, unknown>) : {};
  };

  it('signs up an organisation through the API and verifies its domain on the DNS server', async () => {
    adminBrowser = browser();
    const json = call;
    await json('/api/signup/site', {
      organizationName: 'Host Test',
      siteName,
    });
    const after = outbox.count;
    await json('/api/signup/email', { email: admin });
    await json('/api/signup/verify', { code: await outbox.waitForCode(admin, { after }) });
    const account = await json('/api/signup/account', {
      firstName: 'Ada',
      lastName: 'Lovelace',
      password: PASSWORD,
      passwordConfirmation: PASSWORD,
    });
    const landed = await adminBrowser.follow(String(account.redirectTo), leavesProviderAndApi);
    expect(landed.location).toMatch(/\/setup$/);
    csrf = { 'x-csrf-token': String((await call('/api/session')).csrfToken) };

    const added = (await json('/api/domains', { name: domain })).domain as {
      id: string;
      verificationRecord: { value: string };
    };
    dns.set(domain, { TXT: [added.verificationRecord.value] });
    const verified = await json(`/api/domains/${added.id}/verify`, {});
    expect((verified.check as { outcome: string }).outcome).toBe('verified');
  });

  it('receives mail on port 25 and serves it over IMAP with an app password', async () => {
    const created = await adminBrowser.request('/api/profile/app-passwords', {
      json: { name: 'Laptop' },
      headers: csrf,
    });
    expect(created.status, created.body).toBe(201);
    appPassword = (JSON.parse(created.body) as { password: string }).password;

    await sendTo(host, host.ports.smtp, {
      from: 'someone@sender.example.net',
      to: admin,
      subject: 'Over port 25',
    });
    await host.drainQueue();
    expect(await subjects()).toContain('Over port 25');
    // Both daemons write their own files, with no syslog daemon on the host (docs/mail.md).
    expect(readFileSync(host.mailLog, 'utf8')).toMatch(/postfix\/lmtp\[\d+\]: .* status=sent/);
    expect(readFileSync(host.dovecotLog, 'utf8')).toMatch(/lmtp\(.*saved mail to INBOX/);
  });

  it('signs what a user submits on 587 with the domain’s key, and the signature verifies', async () => {
    // Atrium's job has written OpenDKIM's tables for the verified domain; the sync (cron or
    // the path unit on a host) copies them for OpenDKIM and reloads it.
    await expect.poll(() => host.syncDkim(), { timeout: 20_000 }).toContain('KeyTable');
    const domains = await adminBrowser.request('/api/mail/domains');
    const records = (JSON.parse(domains.body) as MailDomainsResponse).domains.flatMap((d) =>
      d.records.filter((r) => r.purpose === 'dkim'),
    );
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) dns.set(r.host, { TXT: [r.value] });

    await submitUntilAccepted(
      host,
      { from: admin, to: admin, subject: 'Signed on 587' },
      { user: admin, pass: appPassword },
    );
    await host.drainQueue();
    const source = await messageSource('Signed on 587');
    const resolver = new Resolver();
    resolver.setServers([dns.address]);
    const result = await dkimVerify(source, {
      resolver: (name: string, type: string) => resolver.resolve(name, type) as Promise<string[][]>,
    });
    expect(result.results.map((r) => [r.signingDomain, r.status.result])).toEqual([[domain, 'pass']]);

    // Atrium's own listener (SMTP_URL of an installed host): loopback, no sign-in, signed alike.
    await sendTo(host, host.ports.relay, { from: admin, to: admin, subject: 'From Atrium itself' });
    await host.drainQueue();
    const own = await dkimVerify(await messageSource('From Atrium itself'), {
      resolver: (name: string, type: string) => resolver.resolve(name, type) as Promise<string[][]>,
    });
    expect(own.results.map((r) => [r.signingDomain, r.status.result])).toEqual([[domain, 'pass']]);
  });

  it('serves Roundcube at the organisation’s /webmail behind Caddy, signing in through Atrium in Chromium', async () => {
    const siteHost = `${siteName}.atrium.test`;
    const catalog = (await call('/api/apps/catalog')) as { templates: { key: string; launchUrl: string }[] };
    expect(catalog.templates.find((t) => t.key === 'mail')?.launchUrl).toBe(`https://${siteHost}/webmail`);
    // The admin installs Mail there (with this test's https port); Atrium writes Roundcube's file.
    const webmail = `https://${siteHost}:${host.ports.https}/webmail`;
    await call('/api/apps', {
      templateKey: 'mail',
      title: 'Mail',
      launchUrl: webmail,
      redirectUris: [`${webmail}/index.php/login/oauth`],
      openToEveryone: true,
      groupIds: [],
    });
    const hostFile = path.join(host.layout.webmailConfigDir, `${siteHost}${host.ports.https}.inc.php`);
    await expect.poll(() => existsSync(hostFile), { timeout: 20_000 }).toBe(true);
    await host.startWebmail(siteHost);

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP *.atrium.test 127.0.0.1`],
    });
    // Caddy's certificate comes from its own CA (--internal-tls), which this browser does not trust.
    const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    try {
      await page.goto(`${webmail}/`);
      await page.waitForURL((url) => url.href.startsWith(`${host.publicUrl}/login?uid=`));
      const after = outbox.count;
      await page.getByLabel('E-mail address').fill(admin);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel('Sign-in code').fill(await outbox.waitForCode(admin, { after }));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.href.startsWith(`${webmail}/?_task=mail`), { timeout: 30_000 });
      await page.locator('#messagelist').getByText('Over port 25').first().waitFor({ timeout: 20_000 });
    } catch (error) {
      const shown = await page
        .locator('body')
        .innerText()
        .catch(() => '');
      throw new Error(
        `${(error as Error).message}\nat ${page.url()}: ${shown.slice(0, 500)}\n${host.webmailLogs()}\n${host.logs()}`,
      );
    } finally {
      await browser.close();
    }
  }, 120_000);

  async function imap<T>(work: (client: ImapFlow) => Promise<T>): Promise<T> {
    const client = new ImapFlow({
      host: '127.0.0.1',
      port: host.ports.imap,
      secure: false,
      auth: { user: admin, pass: appPassword },
      logger: false,
    });
    await client.connect();
    try {
      const lock = await client.getMailboxLock('INBOX');
      try {
        return await work(client);
      } finally {
        lock.release();
      }
    } finally {
      await client.logout();
    }
  }

  const subjects = () =>
    imap(async (client) => {
      const found: string[] = [];
      for await (const m of client.fetch('1:*', { envelope: true })) found.push(m.envelope?.subject ?? '');
      return found;
    });

  const messageSource = (subject: string) =>
    imap(async (client) => {
      for await (const m of client.fetch('1:*', { envelope: true, source: true })) {
        if (m.envelope?.subject === subject && m.source) return m.source;
      }
      throw new Error(`"${subject}" was not delivered\n${host.logs()}`);
    });
});
