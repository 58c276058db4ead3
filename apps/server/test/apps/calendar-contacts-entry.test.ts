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
  it('tells an admin in plain words that there is nothing to install and where people set up a device, its OIDC values for a web calendar in the snippet', async () => {
    const catalog = await t.app.inject({ url: '/api/apps/catalog', headers: t.adminSession.headers });
    expect(catalog.statusCode).toBe(200);
    const entry = (catalog.json().templates as Record<string, string>[]).find(
      (x) => x.key === 'calendar-contacts',
    )!;
    expect(entry.title).toBe('Calendar & Contacts');
    expect(entry.description).toBe(
      'Everyone gets calendars and contacts on their phones and computers; nothing to install.',
    );
    expect(entry.setupInstructions!.split('\n')).toEqual([
      'Everyone in your organisation already has calendars and contacts; there is nothing to install.',
      'Each person opens Profile → Set up a device, chooses their phone or computer and follows the steps there; their calendars, contacts and mail then appear on it.',
      'Removing a device in Profile signs it out of calendars, contacts and mail.',
    ]);
    // No developer references in what the admin reads (the snippet is under "Advanced" in the console).
    for (const text of [entry.description, entry.setupInstructions]) {
      expect(text).not.toMatch(/docs\/|Bearer|CalDAV|CardDAV|token|web calendar|URL/i);
    }

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
