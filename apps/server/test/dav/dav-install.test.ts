import { describe, expect, it } from 'vitest';
import { hostLayout } from '../../src/operator/host-layout.ts';
import { requiredPackages } from '../../src/operator/install/host-prerequisites.ts';
import { parseInstallOptions } from '../../src/operator/install/install-options.ts';
import { installPlan, installSettings } from '../../src/operator/install/install-plan.ts';

describe('install sets calendars and contacts up with mail', () => {
  const plan = (args: string[]) => {
    const o = parseInstallOptions(
      ['--public-url', 'https://console.example.com', '--mail-host', 'mail.example.com', ...args],
      '/nonexistent',
      undefined,
    );
    const layout = hostLayout('/');
    const settings = installSettings(o, layout, undefined);
    return { o, settings, items: installPlan(o, layout, settings, 'test-release') };
  };
  const fileText = (items: ReturnType<typeof plan>['items'], file: string) => {
    const item = items.find((i) => i.path === file);
    return item && 'content' in item ? String(item.content) : undefined;
  };

  it("writes Radicale's configuration, the /dav route on MAIL_HOST and Radicale's address for Atrium", () => {
    const { o, settings, items } = plan([]);
    const radicale = items.find((i) => i.path === '/etc/radicale/config');
    expect(radicale).toMatchObject({ owner: 'root', group: 'radicale', mode: 0o640, affects: ['radicale'] });
    expect(fileText(items, '/etc/radicale/config')).toContain('type = http_x_remote_user');
    expect(fileText(items, '/etc/caddy/Caddyfile')).toContain('\t\thost mail.example.com\n');
    expect(fileText(items, '/etc/caddy/Caddyfile')).toContain('forward_auth 127.0.0.1:');
    expect(settings.DAV_RADICALE_ADDRESS).toBe('127.0.0.1:5232');
    expect(requiredPackages(o, true)).toContain('radicale');
  });

  it('writes none of it without mail', () => {
    const { o, settings, items } = plan(['--no-mail']);
    expect(items.find((i) => i.path === '/etc/radicale/config')).toBeUndefined();
    expect(fileText(items, '/etc/caddy/Caddyfile')).not.toContain('/dav');
    expect(settings.DAV_RADICALE_ADDRESS).toBeUndefined();
    expect(requiredPackages(o, true)).not.toContain('radicale');
  });
});
