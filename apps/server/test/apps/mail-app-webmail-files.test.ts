import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppTemplate } from '@atrium/contracts/apps';
import { createOrganizationWithAdmin, signInAs } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { phpString, webmailHostFiles, type WebmailContext } from '../../src/modules/webmail/webmail-hosts.ts';
import { loadAppCatalog } from '../../src/modules/apps/catalog.ts';

// Roundcube on Atrium's host (WEBMAIL_CONFIG_DIR): each Mail app's `<host>.inc.php`, kept by a job
// from the database (modules/webmail). Roundcube reading them for real: e2e/roundcube.spec.ts.

const BASE = 'atrium.example.test';

async function adminOf(server: TestApp) {
  const org = await createOrganizationWithAdmin(server.db);
  const admin = await signInAs(server.db, org.admin);
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    server.app.inject({ method, url, headers: admin.headers, ...(payload ? { payload } : {}) });
  return { org, call };
}

async function installMail(call: Awaited<ReturnType<typeof adminOf>>['call']) {
  const catalog = await call('GET', '/api/apps/catalog');
  const mail = (catalog.json() as { templates: AppTemplate[] }).templates.find((t) => t.key === 'mail')!;
  const response = await call('POST', '/api/apps', {
    templateKey: 'mail',
    title: 'Mail',
    launchUrl: mail.launchUrl,
    redirectUris: [`${mail.launchUrl}/index.php/login/oauth`],
    openToEveryone: true,
    groupIds: [],
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as {
    app: { id: string; clientId: string; launchUrl: string };
    clientSecret: string;
  };
}

/** What PHP makes of a file: Roundcube includes it and takes `$config`. */
function phpConfigOf(file: string): Record<string, unknown> {
  const run = spawnSync('php', ['-r', 'include $argv[1]; echo json_encode($config);', file], {
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe('Roundcube’s per-host files for Mail apps', () => {
  let server: TestApp;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'atrium-webmail-'));
    server = await createTestApp({
      env: { WEBMAIL_CONFIG_DIR: dir, SITE_BASE_DOMAIN: BASE, PUBLIC_URL: `https://${BASE}` },
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  const fileOf = (site: string) => path.join(dir, `${site}.${BASE}.inc.php`);

  it('offers the organisation’s site /webmail as the launch URL, writes its file 0640 on install, and deletes it on uninstall', async () => {
    const { org, call } = await adminOf(server);
    const installed = await installMail(call);
    expect(installed.app.launchUrl).toBe(`https://${org.siteName}.${BASE}/webmail`);
    const file = fileOf(org.siteName);
    await vi.waitFor(() => expect(existsSync(file)).toBe(true), { timeout: 10_000, interval: 50 });
    expect(statSync(file).mode & 0o777).toBe(0o640);
    const config = phpConfigOf(file);
    expect(config).toMatchObject({
      oauth_provider: 'generic',
      oauth_client_id: installed.app.clientId,
      oauth_client_secret: installed.clientSecret,
      oauth_token_uri: `https://${BASE}/oidc/token`,
      oauth_auth_uri: `https://${BASE}/oidc/auth`,
      oauth_scope: 'openid email profile',
      // On Roundcube's host: Dovecot and Postfix over loopback, not out through MAIL_HOST.
      imap_host: '127.0.0.1:143',
      smtp_host: '127.0.0.1:587',
      request_path: '/webmail/',
    });

    // A new secret reaches the file.
    const rotated = await call('POST', `/api/apps/${installed.app.id}/secret`);
    const secret = (rotated.json() as { clientSecret: string }).clientSecret;
    await vi.waitFor(() => expect(phpConfigOf(file).oauth_client_secret).toBe(secret), {
      timeout: 10_000,
      interval: 50,
    });

    expect((await call('DELETE', `/api/apps/${installed.app.id}`)).statusCode).toBe(204);
    await vi.waitFor(() => expect(existsSync(file)).toBe(false), { timeout: 10_000, interval: 50 });
  });

  it('gives a second organisation its own file, and none for a host that is not its own', async () => {
    const first = await adminOf(server);
    const second = await adminOf(server);
    const a = await installMail(first.call);
    const b = await installMail(second.call);
    await vi.waitFor(
      () => {
        expect(phpConfigOf(fileOf(first.org.siteName)).oauth_client_id).toBe(a.app.clientId);
        expect(phpConfigOf(fileOf(second.org.siteName)).oauth_client_id).toBe(b.app.clientId);
      },
      { timeout: 10_000, interval: 50 },
    );
    // The second admin points their Mail app at the first organisation's webmail: not theirs.
    const moved = `https://${first.org.siteName}.${BASE}/webmail`;
    const changed = await second.call('PUT', `/api/apps/${b.app.id}`, {
      title: 'Mail',
      launchUrl: moved,
      redirectUris: [`${moved}/index.php/login/oauth`],
      openToEveryone: true,
      groupIds: [],
    });
    expect(changed.statusCode, changed.body).toBe(200);
    await vi.waitFor(() => expect(existsSync(fileOf(second.org.siteName))).toBe(false), {
      timeout: 10_000,
      interval: 50,
    });
    expect(phpConfigOf(fileOf(first.org.siteName)).oauth_client_id).toBe(a.app.clientId);
  });

  it('leaves files that are not a host’s alone', async () => {
    writeFileSync(path.join(dir, 'config.inc.php'), '<?php\n');
    const { call } = await adminOf(server);
    const installed = await installMail(call);
    await call('DELETE', `/api/apps/${installed.app.id}`);
    await vi.waitFor(
      async () => {
        const jobs = await server.db
          .selectFrom('jobs')
          .select('status')
          .where('kind', '=', 'webmail.host-files')
          .where('status', 'in', ['queued', 'running'])
          .execute();
        expect(jobs).toEqual([]);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(readdirSync(dir)).toContain('config.inc.php');
  });
});

describe('without WEBMAIL_CONFIG_DIR', () => {
  it('writes nothing and leaves the Mail launch URL for the admin to enter', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atrium-webmail-off-'));
    const server = await createTestApp({ env: { SITE_BASE_DOMAIN: BASE } });
    try {
      const { call } = await adminOf(server);
      const catalog = await call('GET', '/api/apps/catalog');
      const mail = (catalog.json() as { templates: AppTemplate[] }).templates.find((t) => t.key === 'mail')!;
      expect(mail.launchUrl).toBe('');
      const response = await call('POST', '/api/apps', {
        templateKey: 'mail',
        title: 'Mail',
        launchUrl: 'https://webmail.example.test',
        redirectUris: ['https://webmail.example.test/index.php/login/oauth'],
        openToEveryone: true,
        groupIds: [],
      });
      expect(response.statusCode, response.body).toBe(201);
      // No job either: no process here writes the files, and one queued would wait for good
      // (the writer's 10-minute pass brings changes made elsewhere).
      const jobs = await server.db
        .selectFrom('jobs')
        .select('status')
        .where('kind', '=', 'webmail.host-files')
        .execute();
      expect(jobs).toEqual([]);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

/** One Mail app's host file for acme.example.test, written and read back by PHP. */
function hostFileFor(webmail: WebmailContext['config']['webmail'], clientSecret: string) {
  const written = webmailHostFiles(
    [
      {
        app_id: 'app',
        organization_id: 'org',
        template_key: 'mail',
        launch_url: 'https://acme.example.test/webmail',
        client_id: 'client',
        client_secret_enc: 'sealed',
        site_name: 'acme',
      },
    ],
    {
      config: {
        publicUrl: new URL('https://atrium.example.test'),
        mailHost: 'mail.example.test',
        siteBaseDomain: 'example.test',
        webmail,
      },
      template: loadAppCatalog(undefined).find('mail')!,
      openSecret: () => clientSecret,
      verifiedDomains: new Map(),
    },
  );
  const file = path.join(
    mkdtempSync(path.join(tmpdir(), 'atrium-webmail-php-')),
    'acme.example.test.inc.php',
  );
  writeFileSync(file, written.files['acme.example.test.inc.php']!);
  return { config: phpConfigOf(file), text: readFileSync(file, 'utf8') };
}

describe('a host file’s PHP', () => {
  it('keeps a quote or backslash in a value inside its string', () => {
    expect(phpString("a'b\\c")).toBe("'a\\'b\\\\c'");
    const { config, text } = hostFileFor(
      { imapHost: 'tls://mail.example.test:143', smtpHost: '127.0.0.1:587' },
      "s'];system('id');//\\",
    );
    expect(config.oauth_client_secret).toBe("s'];system('id');//\\");
    expect(config.oauth_token_uri).toBe('https://atrium.example.test/oidc/token');
    // STARTTLS to another host checks the certificate against MAIL_HOST.
    expect(config.imap_conn_options).toEqual({ ssl: { peer_name: 'mail.example.test' } });
    expect(text).not.toContain('smtp_conn_options');
  });

  it('on an installed host: STARTTLS to submission on loopback, and the provider reached on loopback', () => {
    const { config, text } = hostFileFor(
      { imapHost: '127.0.0.1:143', smtpHost: 'tls://127.0.0.1:587', providerUrl: 'http://127.0.0.1:8080' },
      'secret',
    );
    // The browser still goes to PUBLIC_URL; Roundcube's own calls stay on this host.
    expect(config.oauth_auth_uri).toBe('https://atrium.example.test/oidc/auth');
    expect(config.oauth_token_uri).toBe('http://127.0.0.1:8080/oidc/token');
    expect(config.oauth_identity_uri).toBe('http://127.0.0.1:8080/oidc/me');
    expect(config.smtp_host).toBe('tls://127.0.0.1:587');
    expect(config.smtp_conn_options).toEqual({ ssl: { verify_peer: false, verify_peer_name: false } });
    expect(text).not.toContain('imap_conn_options');
  });
});
