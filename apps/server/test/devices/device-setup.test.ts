import { execFileSync } from 'node:child_process';
import type { SetUpDeviceResponse } from '@atrium/contracts/devices';
import { describe, expect, it } from 'vitest';
import { verifyAppPassword } from '../../src/modules/mail/app-passwords/app-passwords.service.ts';
import { useAdminWorld } from '../support/admin-world.ts';
import { requestMobileconfig } from './helpers.ts';

const t = useAdminWorld({
  env: { PUBLIC_URL: 'https://atrium.test', MAIL_HOST: 'mail.atrium.test' },
  org: { siteName: 'acme' },
});

interface PayloadSummary {
  type: string;
  uuid: string;
  identifier: string;
  fields: Record<string, string | number | boolean>;
}

/** Reads a profile with Python's plistlib, as a tool that knows Apple's format would. */
function readWithPlistlib(body: string): { top: Record<string, unknown>; payloads: PayloadSummary[] } {
  const script = `
import json, plistlib, sys
p = plistlib.loads(sys.stdin.buffer.read())
top = {k: v for k, v in p.items() if k != 'PayloadContent'}
payloads = [{'type': c['PayloadType'], 'uuid': c['PayloadUUID'], 'identifier': c['PayloadIdentifier'],
             'fields': {k: v for k, v in c.items()}} for c in p['PayloadContent']]
print(json.dumps({'top': top, 'payloads': payloads}))
`;
  return JSON.parse(execFileSync('python3', ['-c', script], { input: body }).toString());
}

const setUp = (payload: { kind: string; name: string }, headers = t.adminSession.headers) =>
  t.app.inject({ method: 'POST', url: '/api/profile/devices', headers, payload });

describe('Set up a device', () => {
  it('gives an Apple device a one-time profile link with mail, CalDAV, CardDAV and directory accounts', async () => {
    const response = await setUp({ kind: 'apple', name: 'Ada’s iPhone' });
    expect(response.statusCode, response.body).toBe(201);
    const created = response.json<SetUpDeviceResponse>();
    const email = t.org.admin.email;
    expect(created.appPassword.name).toBe('Ada’s iPhone');
    expect(created.password).toMatch(/^[a-z2-7]{5}(-[a-z2-7]{5}){3}$/);
    expect(created.settings).toEqual({
      username: email,
      email,
      imap: { host: 'mail.atrium.test', port: 993, security: 'SSL' },
      smtp: { host: 'mail.atrium.test', port: 587, security: 'STARTTLS' },
      davUrl: 'https://mail.atrium.test/dav/',
    });
    const profile = created.profile!;
    expect(profile.url).toMatch(/^https:\/\/atrium\.test\/api\/device-profiles\/[\w-]{32}$/);
    expect(profile.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(profile.signed).toBe(false);
    expect(Buffer.from(profile.qrCode.split(',')[1]!, 'base64').toString()).toContain('<svg');

    // The phone that opens the link has no session.
    const path = new URL(profile.url).pathname;
    const download = await t.app.inject({ url: path });
    expect(download.statusCode, download.body).toBe(200);
    expect(download.headers['content-type']).toBe('application/x-apple-aspen-config');
    expect(download.headers['content-disposition']).toBe('attachment; filename="atrium.mobileconfig"');
    expect(download.headers['cache-control']).toBe('no-store');

    const { top, payloads } = readWithPlistlib(download.body);
    expect(top).toMatchObject({
      PayloadType: 'Configuration',
      PayloadVersion: 1,
      PayloadOrganization: 'Org acme',
    });
    expect(payloads.map((p) => p.type)).toEqual([
      'com.apple.mail.managed',
      'com.apple.caldav.account',
      'com.apple.carddav.account',
      'com.apple.carddav.account',
    ]);
    const uuids = [top.PayloadUUID, ...payloads.map((p) => p.uuid)];
    expect(new Set(uuids).size).toBe(5);
    for (const uuid of uuids) expect(uuid).toMatch(/^[0-9a-f-]{36}$/i);
    expect(new Set(payloads.map((p) => p.identifier)).size).toBe(4);
    const [mail, caldav, carddav, directory] = payloads.map((p) => p.fields);
    expect(mail).toMatchObject({
      EmailAccountType: 'EmailTypeIMAP',
      EmailAddress: email,
      IncomingMailServerHostName: 'mail.atrium.test',
      IncomingMailServerPortNumber: 993,
      IncomingMailServerUseSSL: true,
      IncomingMailServerUsername: email,
      IncomingPassword: created.password,
      OutgoingMailServerHostName: 'mail.atrium.test',
      OutgoingMailServerPortNumber: 587,
      OutgoingMailServerUsername: email,
      OutgoingPassword: created.password,
    });
    expect(caldav).toMatchObject({
      CalDAVHostName: 'mail.atrium.test',
      CalDAVPort: 443,
      CalDAVUseSSL: true,
      CalDAVPrincipalURL: 'https://mail.atrium.test/dav/',
      CalDAVUsername: email,
      CalDAVPassword: created.password,
    });
    expect(carddav).toMatchObject({
      CardDAVHostName: 'mail.atrium.test',
      CardDAVPort: 443,
      CardDAVPrincipalURL: 'https://mail.atrium.test/dav/principals/contacts/',
      CardDAVUsername: email,
      CardDAVPassword: created.password,
    });
    // The organisation's directory is an account of its own (iOS syncs one address book per
    // account), named after the organisation, whose principal lists the directory alone.
    expect(directory).toMatchObject({
      PayloadDisplayName: 'Org acme directory',
      CardDAVAccountDescription: 'Org acme directory',
      CardDAVHostName: 'mail.atrium.test',
      CardDAVPort: 443,
      CardDAVUseSSL: true,
      CardDAVPrincipalURL: 'https://mail.atrium.test/dav/principals/organisation-directory/',
      CardDAVUsername: email,
      CardDAVPassword: created.password,
    });
    // The password in the profile signs in (what Dovecot asks Atrium).
    expect(await verifyAppPassword(t.db, email, mail!.IncomingPassword as string)).toBe(email);

    // Once only.
    expect((await t.app.inject({ url: path })).statusCode).toBe(404);
  });

  it('gives other devices the values to type, and no profile', async () => {
    for (const kind of ['android', 'thunderbird', 'outlook', 'other']) {
      const response = await setUp({ kind, name: `Device ${kind}` });
      expect(response.statusCode, response.body).toBe(201);
      const created = response.json<SetUpDeviceResponse>();
      expect(created.profile).toBeNull();
      expect(created.settings.imap.port).toBe(993);
    }
    const list = await t.app.inject({ url: '/api/profile/app-passwords', headers: t.adminSession.headers });
    expect(list.json().appPasswords.map((p: { name: string }) => p.name)).toContain('Device thunderbird');
  });

  it('refuses a name already used, an unknown kind, and a visitor without a session', async () => {
    await setUp({ kind: 'android', name: 'Pixel' });
    const again = await setUp({ kind: 'apple', name: 'Pixel' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.fields).toEqual({ name: 'Choose a name you have not used yet' });
    const unknown = await setUp({ kind: 'blackberry', name: 'Old phone' });
    expect(unknown.statusCode).toBe(400);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/profile/devices',
      payload: { kind: 'apple', name: 'X' },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('revoking the app password makes its profile link useless', async () => {
    const created = (await setUp({ kind: 'apple', name: 'Lost iPad' })).json<SetUpDeviceResponse>();
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/profile/app-passwords/${created.appPassword.id}`,
      headers: t.adminSession.headers,
    });
    expect(revoked.statusCode).toBe(204);
    expect((await t.app.inject({ url: new URL(created.profile!.url).pathname })).statusCode).toBe(404);
  });

  it('answers the signed-in user a profile at once from the authenticated endpoint', async () => {
    const response = await requestMobileconfig(t, 'Work Mac');
    const { payloads } = readWithPlistlib(response.body);
    expect(payloads.map((p) => p.type)).toEqual([
      'com.apple.mail.managed',
      'com.apple.caldav.account',
      'com.apple.carddav.account',
      'com.apple.carddav.account',
    ]);
    const password = payloads[0]!.fields.IncomingPassword as string;
    expect(await verifyAppPassword(t.db, t.org.admin.email, password)).toBe(t.org.admin.email);
  });
});
