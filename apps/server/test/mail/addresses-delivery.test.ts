import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createUser, signInAs, type TestSession, type TestUser } from '../support/fixtures.ts';
import { createAppPassword } from '../support/app-passwords.ts';
import { useStarted } from '../support/use-started.ts';
import { createMailWorld, imapSignIn, inboxSubjects, sendMail } from './mail-world.ts';

// Aliases, group addresses and catch-alls through Debian's Postfix and Dovecot: mail sent over
// SMTP lands in the right mailboxes, read over IMAP.

describe('mail to aliases, group addresses and catch-alls', () => {
  const world = useStarted(() => createMailWorld());
  let admin: TestSession;

  beforeAll(async () => {
    admin = await signInAs(world.server.db, world.org.admin);
  });

  async function call(method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) {
    const response = await world.server.app.inject({
      method,
      url,
      headers: admin.headers,
      ...(payload ? { payload } : {}),
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json() as { id: string };
  }

  const appPassword = async (user: TestUser) =>
    (await createAppPassword(world.server, user, 'Mail app')).password;

  async function inbox(user: TestUser, password: string) {
    const imap = await imapSignIn(world, { user: user.email, pass: password });
    try {
      return (await inboxSubjects(imap)).sort();
    } finally {
      await imap.logout();
    }
  }

  const send = (to: string, subject: string) =>
    sendMail(world, { from: 'someone@example.net', to, subject, text: 'x' });

  it('delivers to an alias’s user, every member of a group, and the catch-all; mailboxes keep theirs', async () => {
    const [ann, bob, carl] = [await world.user(), await world.user(), await world.user()];
    // With a password of her own, so reactivating makes her active again (not invited).
    const sue = await createUser(world.server.db, world.org.id, {
      email: `sue@${world.domain}`,
      passwordHash: await hashPassword('correct horse battery staple'),
    });
    const at = (local: string) => `${local}@${world.domain}`;
    await call('POST', '/api/mail/aliases', { userId: ann.id, localPart: 'hello', domain: world.domain });
    const group = await call('POST', '/api/groups', { name: 'Sales' });
    await call('POST', `/api/groups/${group.id}/members`, { userIds: [bob.id, sue.id] });
    await call('PUT', `/api/mail/group-addresses/${group.id}`, { localPart: 'sales', domain: world.domain });
    const domain = await world.server.db
      .selectFrom('domains')
      .select('id')
      .where('name', '=', world.domain)
      .executeTakeFirstOrThrow();
    await call('PUT', `/api/mail/catch-alls/${domain.id}`, { type: 'user', id: carl.id });
    // A suspended member's mailbox keeps the list's mail, as it keeps mail sent to them directly.
    await call('POST', `/api/users/${sue.id}/suspend`);

    await send(at('hello'), 'To the alias');
    await send(at('sales'), 'To the group');
    await send(at('no-such-person'), 'To nobody in particular');
    await send(ann.email, 'To Ann herself');
    await world.mail.drainQueue();

    // Ann's own address is not swallowed by the catch-all: it answers itself in the alias map.
    expect(await inbox(ann, await appPassword(ann)), world.mail.logs()).toEqual([
      'To Ann herself',
      'To the alias',
    ]);
    const bobPassword = await appPassword(bob);
    expect(await inbox(bob, bobPassword), world.mail.logs()).toEqual(['To the group']);
    expect(await inbox(carl, await appPassword(carl)), world.mail.logs()).toEqual([
      'To nobody in particular',
    ]);

    // Removing a member stops delivery to them at once; the others still get the list's mail.
    await call('DELETE', `/api/groups/${group.id}/members/${bob.id}`);
    await send(at('sales'), 'After Bob left');
    await world.mail.drainQueue();
    expect(await inbox(bob, bobPassword), world.mail.logs()).toEqual(['To the group']);
    await call('POST', `/api/users/${sue.id}/reactivate`);
    expect(await inbox(sue, await appPassword(sue)), world.mail.logs()).toEqual([
      'After Bob left',
      'To the group',
    ]);

    // Without the catch-all, an unknown address is refused at RCPT time again.
    await call('DELETE', `/api/mail/catch-alls/${domain.id}`);
    const refused = await send(at('no-such-person'), 'Refused').then(
      () => null,
      (error: { responseCode?: number }) => error,
    );
    expect(refused?.responseCode, world.mail.logs()).toBe(550);
  });

  it('lets a user send as their alias, not as a group’s address', async () => {
    const dora = await world.user();
    const rcpt = await world.user();
    const password = await appPassword(dora);
    await call('POST', '/api/mail/aliases', {
      userId: dora.id,
      localPart: 'dora.alias',
      domain: world.domain,
    });
    const group = await call('POST', '/api/groups', { name: 'Dora’s team' });
    await call('POST', `/api/groups/${group.id}/members`, { userIds: [dora.id] });
    await call('PUT', `/api/mail/group-addresses/${group.id}`, {
      localPart: 'doras-team',
      domain: world.domain,
    });
    const auth = { user: dora.email, pass: password };

    await sendMail(
      world,
      { from: `dora.alias@${world.domain}`, to: rcpt.email, subject: 'From my alias', text: 'x' },
      auth,
    );
    const asGroup = await sendMail(
      world,
      { from: `doras-team@${world.domain}`, to: rcpt.email, subject: 'From the team', text: 'x' },
      auth,
    ).then(
      () => null,
      (error: { responseCode?: number; response?: string }) => error,
    );
    expect(asGroup?.responseCode, world.mail.logs()).toBe(553);
    expect(asGroup?.response).toMatch(/not owned by user/i);
    await world.mail.drainQueue();
    expect(await inbox(rcpt, await appPassword(rcpt)), world.mail.logs()).toEqual(['From my alias']);
  });
});
