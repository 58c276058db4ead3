import type { X509Certificate } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { connect as connectTls } from 'node:tls';
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
import { InstalledHost, MAIL_HOST } from './installed-host.ts';
import { imapsSubjects, sendOverSubmissions, servedFingerprints } from './mail-tls.ts';

// The operator's path, end to end, in one certificate mode: `install --root DIR` on a fresh root,
// the daemons started from the files it wrote (Atrium by its init script as user atrium, Caddy as
// caddy, OpenDKIM as opendkim with RequireSafeKeys on), then an organisation signs up through the
// API, verifies its domain against a DNS server on loopback, receives mail on port 25, reads it
// over IMAP and IMAPS with an app password, submits on 587 and 465 with TLS checked as a phone
// does, and sends from Roundcube in Chromium; every message leaves DKIM-signed and passes SPF.

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

/** Where the host's certificates come from (issue 40's three modes). */
export interface CertificateMode {
  name: string;
  /** install's options beyond installArgs' own (which include --internal-tls). */
  installArgs: () => string[];
  /** The certificate the mail ports must serve, once the host runs. */
  mailCertificate: (host: InstalledHost) => X509Certificate;
  /** The operator's certificate and its CA, when there is one. */
  operatorCertificate?: () => X509Certificate;
  operatorCa?: () => string;
  /** Which of Caddy's names the operator's certificate serves. */
  operatorCovers: Array<'mail' | 'sites'>;
  /** Atrium's real first start (creating the embedded database), not the migrated template. */
  firstStart?: boolean;
}

export interface ScenarioContext {
  host: InstalledHost;
  dns: TestDnsServer;
  outbox: Mailbox;
  firstInstall: ReturnType<InstalledHost['install']>;
  /** The organisation's verified domain, once the first test has verified it. */
  domain: string;
  /** The admin's console request (session cookie and CSRF token), once the first test signed up. */
  call: (url: string, body?: unknown) => Promise<Record<string, unknown>>;
}

/**
 * The whole scenario for one mode; `extra` adds the tests of one file (they run after the
 * scenario's, on the same host). Returns the context, filled once beforeAll has run.
 */
export function installedHostScenario(
  mode: CertificateMode,
  extra?: (context: ScenarioContext) => void,
): ScenarioContext {
  const context = {} as ScenarioContext;
  let host: InstalledHost;
  let dns: TestDnsServer;
  let outbox: Mailbox;
  let firstInstall: ScenarioContext['firstInstall'];

  beforeAll(async () => {
    dns = context.dns = await TestDnsServer.start();
    outbox = context.outbox = await Mailbox.start();
    host = context.host = await InstalledHost.create();
    host.operatorCa = mode.operatorCa?.();
    firstInstall = context.firstInstall = host.install(mode.installArgs());
    if (firstInstall.status !== 0) throw new Error(`install failed:\n${firstInstall.output}`);
    // The operator's own settings: where Atrium sends its mail (codes) and which resolver it asks.
    host.addSettings({ SMTP_URL: outbox.url, DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '1000' });
    // Atrium writes OpenDKIM's tables at start; the sync copies them before OpenDKIM reads them.
    await host.startAtrium({ firstStart: mode.firstStart });
    host.syncDkim();
    await host.startMail();
  }, 180_000);

  afterAll(async () => {
    await host?.close();
    await outbox?.close();
    await dns?.close();
  });

  describe(`the installed host (${mode.name})`, () => {
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
    context.domain = domain;
    context.call = call;

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
      // Delivery runs Sieve (docs/mail.md, "Filters, Junk and Out of office"), which logs the store.
      expect(readFileSync(host.dovecotLog, 'utf8')).toMatch(/lmtp\(.*stored mail into mailbox 'INBOX'/);
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

    it('serves the mail host’s certificate on 993, 465 and 587, where a phone signs in with TLS checked', async () => {
      const expected = mode.mailCertificate(host);
      // Checked against the CA a device is told to trust, for the name MAIL_HOST, on every port.
      const served = await servedFingerprints(host);
      expect(served).toEqual({
        imaps: expected.fingerprint256,
        submissions: expected.fingerprint256,
        submission: expected.fingerprint256,
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
      const catalog = (await call('/api/apps/catalog')) as {
        templates: { key: string; launchUrl: string }[];
      };
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
        // Roundcube says "Message sent successfully" briefly and goes back to the mailbox: the
        // message's arrival, checked below, is what counts.
        await page.waitForURL((url) => !url.href.includes('_action=compose'), { timeout: 30_000 });
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

    it('serves each web name with the operator’s certificate where it covers it, and Caddy’s elsewhere', async () => {
      const served = (servername: string) =>
        new Promise<X509Certificate>((resolve, reject) => {
          const socket = connectTls({
            host: '127.0.0.1',
            port: host.ports.https,
            servername,
            rejectUnauthorized: false,
          });
          socket.once('secureConnect', () => {
            resolve(socket.getPeerX509Certificate()!);
            socket.destroy();
          });
          socket.once('error', reject);
        });
      const operator = mode.operatorCertificate?.();
      const byOperator = async (name: string) =>
        (await served(name)).fingerprint256 === operator?.fingerprint256;
      expect(await byOperator(MAIL_HOST)).toBe(mode.operatorCovers.includes('mail'));
      const site = await served(`${siteName}.atrium.test`);
      expect(site.fingerprint256 === operator?.fingerprint256).toBe(mode.operatorCovers.includes('sites'));
      if (!mode.operatorCovers.includes('sites')) expect(site.issuer).toContain('Caddy Local Authority');
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

    extra?.(context);
  });

  return context;
}
