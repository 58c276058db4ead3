import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { davCredentials, pathBelongsTo } from '../../src/modules/dav/dav-auth.service.ts';
import { caddyfile } from '../../src/operator/install/caddyfile.ts';
import { davCaddyRoutes, radicaleConfig } from '../../src/operator/install/dav-files.ts';
import { webmailCaddyRoutes } from '../../src/operator/install/webmail-files.ts';

describe('the written Radicale and Caddy configuration', () => {
  it('has Radicale trust X-Remote-User on loopback only, with owner-only rights and no web interface', () => {
    const config = radicaleConfig();
    expect(config).toContain('hosts = 127.0.0.1:5232\n');
    expect(config).toMatch(/\[auth\]\ntype = http_x_remote_user\n/);
    expect(config).toMatch(/\[rights\]\ntype = from_file\nfile = \/etc\/radicale\/atrium-rights\n/);
    expect(config).toMatch(/\[storage\]\nfilesystem_folder = \/var\/lib\/radicale\/collections\n/);
    expect(config).toMatch(/\[web\]\ntype = none\n/);
    expect(radicaleConfig({ port: 6000, storage: '/srv/dav' })).toContain('hosts = 127.0.0.1:6000\n');
  });

  it('routes /dav/ on MAIL_HOST through forward_auth, dropping a client-sent X-Remote-User first', () => {
    const routes = davCaddyRoutes({ mailHost: 'mail.example.com', atriumPort: 3000 });
    const file = caddyfile({ publicHost: 'console.example.com', atriumPort: 3000, davRoutes: routes });
    const site = file.slice(file.indexOf('https:// {'));
    expect(site).toContain('\t@dav {\n\t\thost mail.example.com\n\t\tpath /dav /dav/*\n\t}\n');
    // In a route, in this order: strip the header, ask Atrium, strip /dav, pass to Radicale.
    const order = [
      'route @dav {',
      'request_header -X-Remote-User',
      'forward_auth 127.0.0.1:3000 {',
      'uri /api/dav/auth',
      'copy_headers X-Remote-User',
      'uri strip_prefix /dav',
      'reverse_proxy 127.0.0.1:5232 {',
      'header_up X-Script-Name /dav',
    ].map((line) => site.indexOf(line));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // Before the catch-all proxy to Atrium, which answers /.well-known/caldav and carddav.
    expect(site.indexOf('route @dav')).toBeLessThan(site.indexOf('\treverse_proxy 127.0.0.1:3000\n'));
    expect(caddyfile({ publicHost: 'console.example.com', atriumPort: 3000 })).not.toContain('/dav');
  });

  it("is a Caddyfile Debian's Caddy accepts, beside webmail's routes", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atrium-dav-caddyfile-'));
    const file = path.join(dir, 'Caddyfile');
    writeFileSync(
      file,
      caddyfile({
        publicHost: 'console.example.com',
        atriumPort: 8080,
        webmailRoutes: webmailCaddyRoutes({ socket: '/run/php/atrium-webmail.sock' }),
        davRoutes: davCaddyRoutes({ mailHost: 'mail.example.com', atriumPort: 8080 }),
      }),
    );
    const adapted = spawnSync('/usr/bin/caddy', ['adapt', '--config', file, '--adapter', 'caddyfile'], {
      encoding: 'utf8',
    });
    rmSync(dir, { recursive: true, force: true });
    expect(adapted.status, adapted.stderr).toBe(0);
    expect(adapted.stdout).toContain('"X-Remote-User"');
  });
});

describe('the forward_auth answer', () => {
  const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

  it('reads Basic e-mail and app password, or a Bearer token', () => {
    expect(davCredentials(basic('Ada@Example.com:abcde-fghij'))).toEqual({
      kind: 'basic',
      email: 'ada@example.com',
      password: 'abcde-fghij',
    });
    expect(davCredentials('Bearer abc.def')).toEqual({ kind: 'bearer', token: 'abc.def' });
    for (const header of [undefined, '', 'Basic', basic('no-colon'), basic(':password'), 'Digest x']) {
      expect(davCredentials(header)).toEqual({ kind: 'none' });
    }
  });

  it("lets a user reach the DAV root and their own collections only, whatever the path's spelling", () => {
    const me = '0b7f6c1e-1111-4222-8333-444455556666';
    const other = '9c8d7e6f-1111-4222-8333-444455556666';
    for (const uri of ['/dav', '/dav/', `/dav/${me}`, `/dav/${me}/calendar/x.ics?export`]) {
      expect(pathBelongsTo(uri, me), uri).toBe(true);
    }
    for (const uri of [
      undefined,
      '/',
      '/webmail/',
      `/dav/${other}/`,
      `/dav/${me}/../${other}/calendar/`,
      `/dav/%2e%2e/dav/${other}/`,
      `/dav/${me}%2f..%2f${other}/`,
      '/dav/%E0%A4%A/',
      `/dav/.web/`,
    ]) {
      expect(pathBelongsTo(uri, me), uri).toBe(false);
    }
  });
});
