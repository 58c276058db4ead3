import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAs } from '../support/fixtures.ts';
import { createMailWorld, imapSignIn, inboxSubjects, sendMail, type MailWorld } from './mail-world.ts';

describe('mail through Debian’s Postfix and Dovecot, with Atrium as their directory', () => {
  let world: MailWorld;

  beforeAll(async () => {
    world = await createMailWorld();
  }, 60_000);

  afterAll(async () => {
    await world?.close();
  });

  async function appPasswordFor(user: { id: string; email: string; organizationId: string }) {
    const session = await signInAs(world.server.db, user);
    const created = await world.server.app.inject({
      method: 'POST',
      url: '/api/profile/app-passwords',
      headers: session.headers,
      payload: { name: 'Thunderbird' },
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json() as { appPassword: { id: string }; password: string };
  }

  it('delivers a message sent over SMTP to a user’s address into their INBOX', async () => {
    const user = await world.user();
    const { password } = await appPasswordFor(user);
    await sendMail(world, {
      from: 'someone@example.net',
      to: user.email,
      subject: 'Hello there',
      text: 'Hi!',
    });
    await world.mail.drainQueue();
    const imap = await imapSignIn(world, { user: user.email, pass: password });
    try {
      expect(await inboxSubjects(imap), world.mail.logs()).toEqual(['Hello there']);
    } finally {
      await imap.logout();
    }
  });
});
