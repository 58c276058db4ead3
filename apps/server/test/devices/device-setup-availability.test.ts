import { DEVICES_NOT_SET_UP } from '@atrium/contracts/devices';
import { describe, expect, it } from 'vitest';
import { useAdminWorld, type AdminWorld } from '../support/admin-world.ts';

// Issue 42 item 5: "Set up a device" is offered only once the operator has named MAIL_HOST, and
// not a name that means the device itself; otherwise the values would point nowhere.

const status = (t: AdminWorld) =>
  t.app.inject({ url: '/api/profile/devices', headers: t.adminSession.headers });

const setUp = (t: AdminWorld, url = '/api/profile/devices') =>
  t.app.inject({
    method: 'POST',
    url,
    headers: t.adminSession.headers,
    payload: url.endsWith('mobileconfig') ? { name: 'iPhone' } : { kind: 'apple', name: 'iPhone' },
  });

async function expectNotSetUp(t: AdminWorld) {
  const answer = await status(t);
  expect(answer.statusCode, answer.body).toBe(200);
  expect(answer.json()).toEqual({ available: false });
  for (const url of ['/api/profile/devices', '/api/profile/devices/mobileconfig']) {
    const refused = await setUp(t, url);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'devices_not_set_up', message: DEVICES_NOT_SET_UP });
  }
  // No app password was made for a device that could reach nothing.
  const list = await t.app.inject({ url: '/api/profile/app-passwords', headers: t.adminSession.headers });
  expect(list.json().appPasswords).toEqual([]);
}

describe('Set up a device while MAIL_HOST is not set', () => {
  const t = useAdminWorld({ env: { PUBLIC_URL: 'https://atrium.test' } });

  it('says so and makes nothing, although mail.<SITE_BASE_DOMAIN> is the default', async () => {
    expect(t.config.mailHost).toBe('mail.atrium.test');
    await expectNotSetUp(t);
  });
});

describe('Set up a device while MAIL_HOST names localhost', () => {
  const t = useAdminWorld({ env: { MAIL_HOST: 'mail.localhost' } });

  it('says so and makes nothing', async () => {
    await expectNotSetUp(t);
  });
});

describe('Set up a device once MAIL_HOST is set', () => {
  const t = useAdminWorld({ env: { PUBLIC_URL: 'https://atrium.test', MAIL_HOST: 'mail.atrium.test' } });

  it('is offered, and sets the device up', async () => {
    expect((await status(t)).json()).toEqual({ available: true });
    expect((await setUp(t)).statusCode).toBe(201);
  });

  it('needs a session', async () => {
    expect((await t.app.inject({ url: '/api/profile/devices' })).statusCode).toBe(401);
  });
});
