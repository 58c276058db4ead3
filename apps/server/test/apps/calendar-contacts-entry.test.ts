import type { AppWithSecretResponse } from '@atrium/contracts/apps';
import type { SetUpDeviceResponse } from '@atrium/contracts/devices';
import { describe, expect, it } from 'vitest';
import { useAdminWorld } from '../support/admin-world.ts';
import { installBody } from './helpers.ts';

const t = useAdminWorld({
  env: { PUBLIC_URL: 'https://atrium.test', MAIL_HOST: 'mail.atrium.test' },
  org: { siteName: 'acme' },
});

describe('the catalog’s Calendar & Contacts entry', () => {
  it('describes the built-in calendars and contacts with the values "Set up a device" gives', async () => {
    const catalog = await t.app.inject({ url: '/api/apps/catalog', headers: t.adminSession.headers });
    expect(catalog.statusCode).toBe(200);
    const entry = (catalog.json().templates as Record<string, string>[]).find(
      (x) => x.key === 'calendar-contacts',
    )!;
    expect(entry.title).toBe('Calendar & Contacts');
    expect(entry.setupInstructions).toContain('Profile → Set up a device');

    const device = await t.app.inject({
      method: 'POST',
      url: '/api/profile/devices',
      headers: t.adminSession.headers,
      payload: { kind: 'other', name: 'Laptop' },
    });
    expect(device.statusCode, device.body).toBe(201);
    const { davUrl, imap, smtp } = device.json<SetUpDeviceResponse>().settings;
    expect(entry.configSnippet!.split('\n')).toEqual(
      expect.arrayContaining([
        `CALDAV_URL=${davUrl}`,
        `CARDDAV_URL=${davUrl}`,
        `IMAP=${imap.host}:${imap.port} (TLS)`,
        `SMTP=${smtp.host}:${smtp.port} (STARTTLS)`,
        'OIDC_ISSUER=https://atrium.test/oidc',
      ]),
    );
    expect(davUrl).toBe('https://mail.atrium.test/dav/');
  });

  it('installs as the web calendar’s OIDC client, its snippet holding the client and the CalDAV address', async () => {
    const installed = await t.app.inject({
      method: 'POST',
      url: '/api/apps',
      headers: t.adminSession.headers,
      payload: installBody({
        templateKey: 'calendar-contacts',
        title: 'Calendar',
        launchUrl: 'https://calendar.example.com',
        redirectUris: ['https://calendar.example.com/oidc/callback'],
      }),
    });
    expect(installed.statusCode, installed.body).toBe(201);
    const { app, clientSecret } = installed.json<AppWithSecretResponse>();
    expect(app.configSnippet).toContain(`OIDC_CLIENT_ID=${app.clientId}`);
    expect(app.configSnippet).toContain(`OIDC_CLIENT_SECRET=${clientSecret}`);
    expect(app.configSnippet).toContain('OIDC_REDIRECT_URI=https://calendar.example.com/oidc/callback');
    expect(app.configSnippet).toContain('CALDAV_URL=https://mail.atrium.test/dav/');
  });
});
