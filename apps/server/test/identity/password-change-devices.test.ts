import type { ChangePasswordResponse } from '@atrium/contracts/auth';
import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { useOrganizationWorld } from '../support/admin-world.ts';
import { createUser, signInAs } from '../support/fixtures.ts';

// Issue 42 item 3: a password change ends the app passwords (Google's rule: whoever knew the old
// password may have made one, docs/mail.md) and the answer names the devices it disconnected.

const PASSWORD = 'correct horse battery staple';

describe('POST /api/profile/password: the devices it disconnects', () => {
  const server = useOrganizationWorld();

  async function userWithDevices(names: string[]) {
    const user = await createUser(server.db, server.org.id, { passwordHash: await hashPassword(PASSWORD) });
    const session = await signInAs(server.db, user);
    for (const name of names) {
      const created = await server.app.inject({
        method: 'POST',
        url: '/api/profile/app-passwords',
        headers: session.headers,
        payload: { name },
      });
      expect(created.statusCode, created.body).toBe(201);
    }
    const change = () =>
      server.app.inject({
        method: 'POST',
        url: '/api/profile/password',
        headers: session.headers,
        payload: { currentPassword: PASSWORD, newPassword: 'a brand new passphrase 42' },
      });
    const appPasswords = async () =>
      (await server.app.inject({ url: '/api/profile/app-passwords', headers: session.headers })).json<{
        appPasswords: unknown[];
      }>().appPasswords;
    return { change, appPasswords };
  }

  it('names every app password it ended, oldest first, in the answer and in its message', async () => {
    const { change, appPasswords } = await userWithDevices(['Phone', 'Laptop']);
    const response = await change();
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<ChangePasswordResponse>()).toEqual({
      message:
        'Your password was changed. Your other sessions were signed out, and 2 devices (Phone, Laptop) were disconnected.',
      disconnectedDevices: ['Phone', 'Laptop'],
    });
    expect(await appPasswords()).toEqual([]);
  });

  it('says one device in the singular', async () => {
    const { change } = await userWithDevices(['Ada’s iPhone']);
    expect((await change()).json<ChangePasswordResponse>()).toEqual({
      message:
        'Your password was changed. Your other sessions were signed out, and 1 device (Ada’s iPhone) was disconnected.',
      disconnectedDevices: ['Ada’s iPhone'],
    });
  });

  it('names no device when there was none', async () => {
    const { change } = await userWithDevices([]);
    expect((await change()).json<ChangePasswordResponse>()).toEqual({
      message: 'Your password was changed. Your other sessions were signed out.',
      disconnectedDevices: [],
    });
  });
});
