import { describe, expect, it } from 'vitest';
import { createUser } from '../support/fixtures.ts';
import { resetBrowser } from './support/email-codes.ts';
import { minutePasses, REFUSED_CODE, resetMailsTo, settled, spendACode } from './support/reset-attack.ts';
import { openSignIn } from './support/sign-in.ts';
import { signedInDevice, useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

const NEW = 'a brand new passphrase 42';
const SENT = 'If an account exists for this address, we sent a code to it.';

// Issue 38 item 4: someone who knew an address asked for a reset code and spent its 5 tries, 6
// times; the owner's own request then answered "we sent a code" and nothing was sent for an hour.
describe('forgot password while someone else asks for codes', () => {
  const world = useSignInWorld();

  it('sends the owner a code in a browser the account knows, after others spent 6, and it resets the password', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const owner = await signedInDevice(world, user.email);
    const attackers = [];
    for (let i = 0; i < 6; i++) attackers.push(await spendACode(world, user.email, `203.0.113.${i + 1}`));

    await minutePasses(world, user.email);
    const after = world.mailbox.count;
    const asked = await owner.request('/api/password-reset/start', { json: { email: user.email } });
    expect(asked.status).toBe(200);
    expect(JSON.parse(asked.body).message).toBe(SENT);
    const code = await world.mailbox.waitForCode(user.email, { after, subject: /password reset/ });

    // Someone else's browser cannot use the owner's code, nor end it with wrong tries.
    const stolen = await attackers[0]!.complete({
      email: user.email,
      code,
      password: 'a stolen passphrase 9',
    });
    expect(stolen.json()).toEqual(REFUSED_CODE);
    const wrong = code === '000000' ? '111111' : '000000';
    const other = resetBrowser(world, '203.0.113.50', { ...attackers[1]!.cookies });
    for (let i = 0; i < 5; i++) {
      expect((await other.complete({ email: user.email, code: wrong, password: NEW })).json()).toEqual(
        REFUSED_CODE,
      );
    }

    const done = await owner.request('/api/password-reset/complete', {
      json: { email: user.email, code, password: NEW },
    });
    expect(done.status, done.body).toBe(200);
    expect(JSON.parse(done.body).message).toBe('Your password was changed. Sign in with your new password.');
    const login = await openSignIn(world.origin);
    expect((await login.post('password', { email: user.email, password: WORLD_PASSWORD })).status).toBe(400);
    expect((await login.post('password', { email: user.email, password: NEW })).status).toBe(200);
  });

  it('lets browsers the account never signed in with share 6 codes an hour, each sent at most 3 times', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const owner = await signedInDevice(world, user.email);
    const first = world.mailbox.count;
    // Eight browsers at eight addresses ask once a minute, four times each.
    const browsers = Array.from({ length: 8 }, (_, i) => resetBrowser(world, `198.51.100.${i + 1}`));
    const answers = [];
    for (const [round, expected] of [6, 12, 18, 18].entries()) {
      if (round > 0) await minutePasses(world, user.email);
      for (const browser of browsers) answers.push(await browser.start(user.email));
      if (expected > resetMailsTo(world, user.email, first).length) {
        await world.mailbox.waitFor(user.email, {
          after: first,
          where: () => resetMailsTo(world, user.email, first).length >= expected,
        });
      }
    }
    await settled(world);
    // 6 codes (30 tries in all, as one address had before), each in 3 messages: 18 in the hour.
    const mails = resetMailsTo(world, user.email, first);
    expect(mails).toHaveLength(18);
    expect(new Set(mails.map((m) => /\b(\d{6})\b/.exec(m.text)![1])).size).toBe(6);
    // Every answer said the same; a browser past the cap sees what an unknown address sees.
    const unknown = await resetBrowser(world, '198.51.100.99').start('nobody-at-all@example.com');
    for (const answer of answers) {
      expect(answer.statusCode).toBe(200);
      expect(answer.json().message).toBe(unknown.json().message);
      expect(answer.cookies.map((c) => c.name)).toEqual(unknown.cookies.map((c) => c.name));
    }
    const codeRows = await world.server.db
      .selectFrom('email_codes')
      .select(['context', 'attempts'])
      .where('purpose', '=', 'password-reset')
      .where('identifier', '=', user.email)
      .execute();
    expect(codeRows).toHaveLength(6);

    // The account's own browser is not refused for what the others asked.
    await minutePasses(world, user.email);
    const after = world.mailbox.count;
    await owner.request('/api/password-reset/start', { json: { email: user.email } });
    const code = await world.mailbox.waitForCode(user.email, { after, subject: /password reset/ });
    const done = await owner.request('/api/password-reset/complete', {
      json: { email: user.email, code, password: NEW },
    });
    expect(done.status, done.body).toBe(200);
    // The reset ended the codes the other browsers still held.
    const live = await world.server.db
      .selectFrom('email_codes')
      .select('id')
      .where('identifier', '=', user.email)
      .where('consumed_at', 'is', null)
      .execute();
    expect(live).toEqual([]);
  });

  it('answers an address whose unknown browsers used up the hour as it answers an unknown address', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    for (let i = 0; i < 6; i++) await spendACode(world, user.email, `192.0.2.${i + 101}`);
    await minutePasses(world, user.email);
    const fresh = resetBrowser(world, '192.0.2.120');
    const before = world.mailbox.count;
    const known = await fresh.start(user.email);
    const unknown = await fresh.start('nobody-else@example.com');
    expect({ status: known.statusCode, message: known.json().message }).toEqual({
      status: unknown.statusCode,
      message: unknown.json().message,
    });
    await settled(world);
    // Nothing more reached the owner: the browsers the account does not know had their 6.
    expect(resetMailsTo(world, user.email, before)).toEqual([]);
    // And a guess there is refused as any other.
    const guess = await fresh.complete({ email: user.email, code: '123456', password: NEW });
    expect(guess.json()).toEqual(REFUSED_CODE);
  });
});
