import { spawnSync } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
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
import { pyspfResult } from '../support/pyspf.ts';
import { sendTo, submitUntilAccepted } from './host-mail.ts';
import { imapsSubjects, sendOverSubmissions, servedFingerprints } from './mail-tls.ts';
import { InstalledHost, MAIL_HOST } from './installed-host.ts';

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
      'atrium-tls.service',
      'atrium-tls.timer',
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
  let verificationRecord: string;
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
    verificationRecord = added.verificationRecord.value;
    dns.set(domain, { TXT: [verificationRecord] });
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
    const result = await dkimVerify(source, { resolver: dnsResolver() });
    expect(result.results.map((r) => [r.signingDomain, r.status.result])).toEqual([[domain, 'pass']]);

    // Atrium's own listener (SMTP_URL of an installed host): loopback, no sign-in, signed alike.
    await sendTo(host, host.ports.relay, { from: admin, to: admin, subject: 'From Atrium itself' });
    await host.drainQueue();
    const own = await dkimVerify(await messageSource('From Atrium itself'), { resolver: dnsResolver() });
    expect(own.results.map((r) => [r.signingDomain, r.status.result])).toEqual([[domain, 'pass']]);
  });

  it('serves Caddy’s certificate for the mail host on 993, 465 and 587, where a phone signs in with TLS checked', async () => {
    const caddys = new X509Certificate(
      readFileSync(path.join(host.layout.caddyDataDir, 'certificates/local', MAIL_HOST, `${MAIL_HOST}.crt`)),
    );
    // Checked against Caddy's own CA (--internal-tls), for the name MAIL_HOST, on every port.
    const served = await servedFingerprints(host);
    expect(served).toEqual({
      imaps: caddys.fingerprint256,
      submissions: caddys.fingerprint256,
      submission: caddys.fingerprint256,
    });
    await sendOverSubmissions(
      host,
      { from: admin, to: admin, subject: 'Over 465' },
      { user: admin, pass: appPassword },
    );
    await host.drainQueue();
    expect(await imapsSubjects(host, { user: admin, pass: appPassword })).toContain('Over 465');
  });

  it('passes SPF, by an independent evaluator, for mail leaving the host, against the records install printed', async () => {
    // The mail host's records as install printed them: its A record (this machine's address) and SPF.
    const printed = (type: string) =>
      new RegExp(`^  ${MAIL_HOST.replace(/\./g, '\\.')}\\.  ${type}  "?([^"\\s]+(?: [^"]+)?)"?`, 'm').exec(
        firstInstall.stdout,
      )?.[1];
    const address = printed('A')!;
    dns.set(MAIL_HOST, { A: [address], TXT: [printed('TXT')!] });
    const domains = await adminBrowser.request('/api/mail/domains');
    const spf = (JSON.parse(domains.body) as MailDomainsResponse).domains
      .flatMap((d) => d.records)
      .find((r) => r.purpose === 'spf' && r.host === domain)!;
    dns.set(domain, { TXT: [verificationRecord, spf.value] });
    const verdict = await pyspfResult(dns.port, { ip: address, sender: admin, helo: MAIL_HOST });
    expect(verdict, `${spf.value}; ${printed('TXT')}`).toMatchObject({ result: 'pass' });
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

      // And sends: submission with STARTTLS on loopback, signed in with the session's token.
      await page.goto(`${webmail}/?_task=mail&_action=compose`);
      await page.locator('.recipient-input input').first().fill(admin);
      await page.locator('#compose-subject').fill('Sent from webmail');
      await page.locator('#composebody').fill('Written in Roundcube.');
      await page.locator('button.send:visible').first().click();
      await page.getByText('Message sent successfully').waitFor({ timeout: 30_000 });
    } catch (error) {
      await page.screenshot({ path: '/tmp/roundcube-fail.png' }).catch(() => undefined);
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
    await host.drainQueue();
    const signed = await dkimVerify(await messageSource('Sent from webmail'), { resolver: dnsResolver() });
    expect(signed.results.map((r) => [r.signingDomain, r.status.result])).toEqual([[domain, 'pass']]);
  }, 120_000);

  it('hands a renewed certificate to Postfix and Dovecot with the copy cron runs every minute', async () => {
    // Caddy renews: new files where it keeps the mail host's certificate.
    const stored = path.join(host.layout.caddyDataDir, 'certificates/local', MAIL_HOST);
    const made = spawnSync('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '7'],
      ...['-subj', `/CN=${MAIL_HOST}`, '-addext', `subjectAltName=DNS:${MAIL_HOST}`],
      ...['-keyout', path.join(stored, `${MAIL_HOST}.key`), '-out', path.join(stored, `${MAIL_HOST}.crt`)],
    ]);
    expect(made.status, made.stderr.toString()).toBe(0);
    const renewed = new X509Certificate(readFileSync(path.join(stored, `${MAIL_HOST}.crt`)));
    // Every minute, from cron (no systemd) or atrium-tls.timer.
    expect(readFileSync(path.join(host.layout.cronDir, 'atrium-tls'), 'utf8')).toMatch(
      /^\* \* \* \* \* root /m,
    );
    expect(readFileSync(path.join(host.layout.systemdDir, 'atrium-tls.timer'), 'utf8')).toContain(
      'OnUnitActiveSec=1min',
    );
    expect(host.syncTls()).toMatch(/reloaded postfix\nreloaded dovecot/);
    // The renewed one is self-signed: a device told to trust it sees it on every port.
    expect(host.mailCa()).toBe(renewed.toString());
    await expect
      .poll(() => servedFingerprints(host).catch((e: Error) => e.message), { timeout: 20_000 })
      .toEqual({
        imaps: renewed.fingerprint256,
        submissions: renewed.fingerprint256,
        submission: renewed.fingerprint256,
      });
    expect(host.syncTls()).toBe('');
  });

  /** The loopback DNS server, as a DKIM verifier resolves through it. */
  function dnsResolver() {
    const resolver = new Resolver();
    resolver.setServers([dns.address]);
    return (name: string, type: string) => resolver.resolve(name, type) as Promise<string[][]>;
  }

  async function imap<T>(work: (client: ImapFlow) => Promise<T>): Promise<T> {
    const client = new ImapFlow({
      host: '127.0.0.1',
      port: host.ports.imap,
      secure: false,
      // STARTTLS, the certificate checked as a mail client does.
      tls: { servername: MAIL_HOST, ca: host.mailCa() },
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
