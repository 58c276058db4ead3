import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createUser } from '../support/fixtures.ts';
import { TestBrowser } from './support/browser.ts';
import { resetBrowser } from './support/email-codes.ts';
import { minutePasses, resetMailsTo, settled, spendACode } from './support/reset-attack.ts';
import { openSignIn } from './support/sign-in.ts';
import { useSignInWorld, WORLD_PASSWORD, type SignInWorld } from './support/sign-in-world.ts';

const NEW = 'a brand new passphrase 42';
const CHANGED = { message: 'Your password was changed. Sign in with your new password.' };
const REFUSED_LINK = {
  error: {
    code: 'reset_link_invalid',
    message:
      'This reset link does not work: it was already used, or it is not the whole link from the e-mail. Ask for a new code below.',
  },
};
const EXPIRED_LINK = {
  error: { code: 'reset_link_expired', message: 'This reset link has expired. Ask for a new code below.' },
};

/** The reset link a message carries: on a line of its own after "Choose a new password:". */
function linkIn(text: string): URL {
  const line = /Choose a new password:\r?\n(\S+)/.exec(text);
  if (!line) throw new Error(`No reset link in: ${text}`);
  return new URL(line[1]!);
}

/** A browser that never saw Atrium (no cookie at all) opens `link` and sets `password`. */
async function resetByLink(world: SignInWorld, link: URL, password: string) {
  const phone = new TestBrowser(world.origin);
  const token = link.searchParams.get('token') ?? '';
  const res = await phone.request('/api/password-reset/link', { json: { token, password } });
  return { status: res.status, body: JSON.parse(res.body) as unknown };
}

/** Whether `password` signs `email` in at /login (the password step). */
async function passwordWorks(world: SignInWorld, email: string, password: string): Promise<boolean> {
  const login = await openSignIn(world.origin);
  return (await login.post('password', { email, password })).status === 200;
}

// Issue 38 item 4: once others had used the 6 codes of the browsers an account never signed in
// with, the owner's new phone was answered "we sent a code" and got nothing for up to 70 minutes.
describe('forgot password by the e-mail link', () => {
  const world = useSignInWorld();

  it("lets the owner reset from a brand-new browser with the link of a mail someone else's request sent", async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const first = world.mailbox.count;
    for (let i = 0; i < 6; i++) await spendACode(world, user.email, `203.0.113.${i + 11}`);
    // The owner's new phone asks too: the shared 6 are used, so no code comes (as before).
    await minutePasses(world, user.email);
    const before = world.mailbox.count;
    const asked = await resetBrowser(world, '198.51.100.77').start(user.email);
    expect(asked.json().message).toBe('If an account exists for this address, we sent a code to it.');
    await settled(world);
    expect(resetMailsTo(world, user.email, before)).toEqual([]);

    // But the attackers' requests mailed the owner 6 codes, each with a link for any browser.
    const mails = resetMailsTo(world, user.email, first);
    expect(mails).toHaveLength(6);
    const links = mails.map((m) => linkIn(m.text));
    expect(new Set(links.map((l) => l.href)).size).toBe(6);
    for (const link of links) {
      expect(link.origin).toBe(world.origin);
      expect(link.pathname).toBe('/forgot-password');
      // 256 random bits, base64url.
      expect(link.searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    expect(mails[0]!.text).toContain('or open the link below in any browser');
    expect(mails[0]!.text).toContain('The link works once, for 70 minutes.');

    expect(await resetByLink(world, links[2]!, NEW)).toEqual({ status: 200, body: CHANGED });
    expect(await passwordWorks(world, user.email, NEW)).toBe(true);
    expect(await passwordWorks(world, user.email, WORLD_PASSWORD)).toBe(false);

    // The link works once; the reset ended the other links and every code; a made-up token is
    // refused with the same answer as a used link.
    expect(await resetByLink(world, links[2]!, 'yet another passphrase 3')).toEqual({
      status: 400,
      body: REFUSED_LINK,
    });
    expect(await resetByLink(world, links[4]!, 'yet another passphrase 3')).toEqual({
      status: 400,
      body: REFUSED_LINK,
    });
    const madeUp = new URL(links[0]!);
    madeUp.searchParams.set('token', 'A'.repeat(43));
    expect(await resetByLink(world, madeUp, 'yet another passphrase 3')).toEqual({
      status: 400,
      body: REFUSED_LINK,
    });
    expect(await passwordWorks(world, user.email, NEW)).toBe(true);
    const live = await world.server.db
      .selectFrom('email_codes')
      .select('id')
      .where('purpose', '=', 'password-reset')
      .where('identifier', '=', user.email)
      .where('consumed_at', 'is', null)
      .execute();
    expect(live).toEqual([]);
  });

  it('refuses a link after its 70 minutes, and a weak password without using the link up', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const mailed = async (address: string) => {
      const before = world.mailbox.count;
      await resetBrowser(world, address).start(user.email);
      await world.mailbox.waitFor(user.email, { after: before, subject: /password reset/ });
      return linkIn(resetMailsTo(world, user.email, before)[0]!.text);
    };
    const old = await mailed('192.0.2.61');
    const ago = (minutes: number) =>
      world.server.db
        .updateTable('password_reset_links')
        .set({
          created_at: sql`created_at - make_interval(mins => ${minutes})`,
          expires_at: sql`expires_at - make_interval(mins => ${minutes})`,
        })
        .where('user_id', '=', user.id)
        .execute();
    await ago(71);
    expect(await resetByLink(world, old, NEW)).toEqual({ status: 400, body: EXPIRED_LINK });
    expect(await passwordWorks(world, user.email, WORLD_PASSWORD)).toBe(true);

    // A link 69 minutes old still works; a password refused leaves it working.
    const recent = await mailed('192.0.2.62');
    await ago(69);
    const weak = await resetByLink(world, recent, 'password123');
    expect(weak.status).toBe(400);
    expect(weak.body).toMatchObject({ error: { fields: { password: expect.stringMatching(/too common/) } } });
    expect(await resetByLink(world, recent, NEW)).toEqual({ status: 200, body: CHANGED });
    expect(await passwordWorks(world, user.email, NEW)).toBe(true);
    // The reset ended the expired link too: now it is refused as any used link.
    expect(await resetByLink(world, old, 'yet another passphrase 3')).toEqual({
      status: 400,
      body: REFUSED_LINK,
    });
  });

  it('ends the links already mailed when the password is reset with a code', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const attacker = resetBrowser(world, '192.0.2.81');
    const owner = resetBrowser(world, '192.0.2.82');
    let before = world.mailbox.count;
    await attacker.start(user.email);
    await world.mailbox.waitFor(user.email, { after: before, subject: /password reset/ });
    const link = linkIn(resetMailsTo(world, user.email, before)[0]!.text);
    before = world.mailbox.count;
    await owner.start(user.email);
    const code = await world.mailbox.waitForCode(user.email, { after: before, subject: /password reset/ });
    expect((await owner.complete({ email: user.email, code, password: NEW })).statusCode).toBe(200);
    expect(await resetByLink(world, link, 'yet another passphrase 3')).toEqual({
      status: 400,
      body: REFUSED_LINK,
    });
    expect(await passwordWorks(world, user.email, NEW)).toBe(true);
  });

  it('takes at most 10 link tries a minute from one address', async () => {
    const statuses = [];
    for (let i = 0; i < 11; i++) {
      const res = await world.server.app.inject({
        method: 'POST',
        url: '/api/password-reset/link',
        payload: { token: `made-up-${i}`, password: NEW },
        remoteAddress: '192.0.2.99',
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([...Array<number>(10).fill(400), 429]);
  });
});
