import { spawnSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import type { DnsMapping } from '@atrium/contracts/domains';
import { describe, expect, it } from 'vitest';
import { MAIL_HOST } from './installed-host.ts';
import { installedHostScenario } from './installed-host-scenario.ts';
import { servedFingerprints } from './mail-tls.ts';

// The default path, Caddy's certificates (here its own CA, --internal-tls, as there is no ACME on
// loopback): install's files, then the whole scenario (installed-host-scenario.ts), then a
// renewal reaching Postfix and Dovecot.

/** The certificate Caddy keeps for the mail host in its storage. */
const caddysMailCertificate = (layout: { caddyDataDir: string }) =>
  path.join(layout.caddyDataDir, 'certificates/local', MAIL_HOST);

describe('install --root', () => {
  it('reports what it did and the DNS records to publish', () => {
    expect(context.firstInstall.stdout).toContain(`link ${context.host.layout.current}`);
    expect(context.firstInstall.stdout).toContain('Publish these DNS records');
    expect(context.firstInstall.stdout).toMatch(/\*\.atrium\.test\.\s+CNAME/);
    expect(context.firstInstall.stdout).toContain('Under --root nothing is started');
  });

  it('a second run changes nothing and says so, keeping the operator’s own settings', () => {
    const again = context.host.install();
    expect(again.status, again.output).toBe(0);
    expect(again.stdout).toContain('No changes: this host is as install leaves it.');
    const dry = context.host.install(['--dry-run']);
    expect(dry.stdout).toContain('No changes');
    // The operator's relay stays: install wrote the host's Postfix only on the first run.
    expect(readFileSync(context.host.layout.settingsFile, 'utf8')).toContain(
      `\nSMTP_URL=${context.outbox.url}\n`,
    );
  });

  it('gives each directory the owner and mode its daemon accepts', () => {
    const modeOf = (p: string) => (statSync(context.host.at(p)).mode & 0o7777).toString(8);
    expect(modeOf('etc/atrium/atrium.env')).toBe('640');
    expect(modeOf('var/lib/atrium/data')).toBe('700');
    expect(modeOf('etc/opendkim/atrium')).toBe('700');
    expect(modeOf('etc/dovecot/atrium-oauth2-password.conf.ext')).toBe('600');
    expect(modeOf('etc/dovecot/atrium-master-users')).toBe('640');
    expect(modeOf('run/atrium')).toBe('750');
  });

  it('writes systemd units that systemd-analyze verify accepts', () => {
    const units = readdirSync(context.host.layout.systemdDir).map((u) =>
      path.join(context.host.layout.systemdDir, u),
    );
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

const context = installedHostScenario(
  {
    name: 'Caddy’s own CA',
    installArgs: () => [],
    mailCertificate: (host) =>
      new X509Certificate(readFileSync(path.join(caddysMailCertificate(host.layout), `${MAIL_HOST}.crt`))),
    operatorCovers: [],
    // The operator's path whole: the first start creates and migrates the embedded database.
    firstStart: true,
  },
  () => {
    it('hands a renewed certificate to Postfix and Dovecot with the copy cron runs every minute', async () => {
      // Caddy renews: new files where it keeps the mail host's certificate.
      const stored = caddysMailCertificate(context.host.layout);
      const host = context.host;
      const made = spawnSync('openssl', [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '7'],
        ...['-subj', `/CN=${MAIL_HOST}`, '-addext', `subjectAltName=DNS:${MAIL_HOST}`],
        ...['-keyout', path.join(stored, `${MAIL_HOST}.key`), '-out', path.join(stored, `${MAIL_HOST}.crt`)],
      ]);
      expect(made.status, made.stderr.toString()).toBe(0);
      const renewed = new X509Certificate(readFileSync(path.join(stored, `${MAIL_HOST}.crt`)));
      // Every minute, from cron (no systemd) or atrium-tls.timer.
      expect(readFileSync(path.join(context.host.layout.cronDir, 'atrium-tls'), 'utf8')).toMatch(
        /^\* \* \* \* \* root /m,
      );
      expect(readFileSync(path.join(context.host.layout.systemdDir, 'atrium-tls.timer'), 'utf8')).toContain(
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

    it('answers the web and devices with 503 and Retry-After while Atrium is away, and serves again once it is back', async () => {
      const host = context.host;
      const viaCaddy = (servername: string, method: string, pathname: string) =>
        new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
          const request = httpsRequest(
            {
              host: '127.0.0.1',
              port: host.ports.https,
              servername,
              headers: { host: `${servername}:${host.ports.https}` },
              method,
              path: pathname,
              rejectUnauthorized: false,
            },
            (response) => {
              response.resume();
              resolve({
                status: response.statusCode!,
                retryAfter: response.headers['retry-after'] as string,
              });
            },
          );
          request.once('error', reject);
          request.end();
        });
      expect(spawnSync(path.join(host.layout.initDir, 'atrium'), ['stop']).status).toBe(0);
      try {
        // A phone syncing its calendar (not told its password is wrong), and a browser.
        expect(await viaCaddy(MAIL_HOST, 'PROPFIND', '/dav/')).toEqual({ status: 503, retryAfter: '5' });
        expect(await viaCaddy(MAIL_HOST, 'GET', '/')).toEqual({ status: 503, retryAfter: '5' });
      } finally {
        await host.startAtrium();
      }
      expect((await viaCaddy(MAIL_HOST, 'PROPFIND', '/dav/')).status).toBe(401);
    });

    it('serves the MTA-STS policy over HTTPS at mta-sts.<domain> through Caddy, matching the records Atrium lists', async () => {
      const { domains } = (await context.call('/api/domains')) as {
        domains: Array<{ id: string; name: string }>;
      };
      const id = domains.find((d) => d.name === context.domain)!.id;
      const { records } = (await context.call(`/api/domains/${id}/dns-records`)) as DnsMapping;
      const listed = (purpose: string) => records.find((r) => r.purpose === purpose)!;
      const name = listed('mta_sts_host').host;
      expect(name).toBe(`mta-sts.${context.domain}`);
      expect(listed('mta_sts_host').value).toBe(MAIL_HOST);

      // As a sending server fetches it: HTTPS to the name (here Caddy on loopback), the
      // certificate checked against the host's CA (Caddy's own, obtained on demand after the ask).
      const fetched = await new Promise<{ status: number; type: string | undefined; body: string }>(
        (resolve, reject) => {
          const request = httpsRequest(
            {
              host: '127.0.0.1',
              port: context.host.ports.https,
              servername: name,
              headers: { host: `${name}:${context.host.ports.https}` },
              path: '/.well-known/mta-sts.txt',
              ca: context.host.caddyRootCa(),
            },
            (response) => {
              let body = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => (body += chunk));
              response.once('end', () =>
                resolve({ status: response.statusCode!, type: response.headers['content-type'], body }),
              );
            },
          );
          request.once('error', reject);
          request.end();
        },
      );
      expect(fetched.status, fetched.body).toBe(200);
      expect(fetched.type).toMatch(/^text\/plain\b/);
      expect(fetched.body.endsWith('\r\n')).toBe(true);
      const policy = Object.fromEntries(
        fetched.body
          .split('\r\n')
          .filter(Boolean)
          .map((line) => line.split(': ') as [string, string]),
      );
      // doctor has not seen a certificate the system trusts (Caddy's own CA): testing.
      expect(policy).toEqual({ version: 'STSv1', mode: 'testing', mx: MAIL_HOST, max_age: '86400' });
      // The listed _mta-sts id is the one of the policy served: a hash of its text.
      expect(createHash('sha256').update(fetched.body).digest('hex').slice(0, 20)).toBe(
        listed('mta_sts').value.split('id=')[1],
      );
    });
  },
);
