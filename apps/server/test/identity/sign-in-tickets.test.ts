import { beforeAll, describe, expect, it } from 'vitest';
import { signInAs } from '../support/fixtures.ts';
import { addDomain, as } from '../users/helpers.ts';
import { TestBrowser } from './support/browser.ts';
import { useSignInWorld } from './support/sign-in-world.ts';
import { leavesProviderAndApi } from './support/sign-in.ts';

describe('sign-in tickets belong to the browser that earned them', () => {
  const world = useSignInWorld({ adminPassword: false });

  beforeAll(async () => {
    await addDomain(world.server.db, world.org.id, 'tickets.test');
  });

  /** An invitation accepted in `browser` (the attacker's own); returns the `next` link it answered. */
  async function acceptInvitation(browser: TestBrowser, localPart: string): Promise<string> {
    const admin = as(world.server, await signInAs(world.server.db, world.org.admin));
    const created = await admin.post('/api/users', {
      firstName: 'Mal',
      lastName: 'Lory',
      localPart,
      domain: 'tickets.test',
      groupIds: [],
      credential: 'invitation',
    });
    expect(created.status).toBe(201);
    const token = new URL(await world.mailbox.waitForLink(`${localPart}@tickets.test`)).pathname
      .split('/')
      .at(-1)!;
    const password = 'a long enough passphrase';
    const accepted = await browser.request(`/api/invitations/${token}/accept`, {
      json: { password, confirmPassword: password },
    });
    expect(accepted.status, accepted.body).toBe(200);
    return (JSON.parse(accepted.body) as { next: string }).next;
  }

  it("a ticket link opened in another browser leads to the sign-in page, not into the earner's account", async () => {
    const attacker = new TestBrowser(world.origin);
    const next = await acceptInvitation(attacker, 'mal');
    const victim = new TestBrowser(world.origin);
    const hop = await victim.follow(next, (u) => u.pathname === '/login' || leavesProviderAndApi(u));
    expect(new URL(hop.location!).pathname).toBe('/login');
    expect((await victim.request('/api/session')).status).toBe(401);
  });

  it('the browser that accepted the invitation is signed straight in', async () => {
    const invitee = new TestBrowser(world.origin);
    const next = await acceptInvitation(invitee, 'ivy');
    const landed = await invitee.follow(next, leavesProviderAndApi);
    expect(landed.location).toBe(`${world.origin}/application`);
    const session = JSON.parse((await invitee.request('/api/session')).body) as { user: { email: string } };
    expect(session.user.email).toBe('ivy@tickets.test');
    // Signing in through the invitation is a sign-in: the users list and the user's page say when.
    const admin = as(world.server, await signInAs(world.server.db, world.org.admin));
    const listed = await admin.get(`/api/users?${new URLSearchParams({ q: 'ivy@tickets.test' })}`);
    expect(listed.status).toBe(200);
    const ivy = (listed.body.users as Array<{ email: string; lastSignInAt: string | null }>).find(
      (u) => u.email === 'ivy@tickets.test',
    );
    expect(ivy?.lastSignInAt).not.toBeNull();
    expect(Date.now() - Date.parse(ivy!.lastSignInAt!)).toBeLessThan(60_000);
  });

  it('setting the password without following the ticket link is no sign-in', async () => {
    const attacker = new TestBrowser(world.origin);
    await acceptInvitation(attacker, 'moe');
    const row = await world.server.db
      .selectFrom('users')
      .select('last_sign_in_at')
      .where('email', '=', 'moe@tickets.test')
      .executeTakeFirstOrThrow();
    expect(row.last_sign_in_at).toBeNull();
  });
});
