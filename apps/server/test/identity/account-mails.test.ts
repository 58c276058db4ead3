import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createUser, signInAs } from '../support/fixtures.ts';
import { type ReceivedMail } from '../support/mailbox.ts';
import { addDomain, as } from '../users/helpers.ts';
import { TestBrowser } from './support/browser.ts';
import { resetPasswordWithMailedCode } from './support/email-codes.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';
import { leavesProviderAndApi, signInToConsole } from './support/sign-in.ts';

// Issue 13 item 9: the e-mails people receive, each with a text and an HTML part.
const ORG = '<b>Acme & Co</b>';
const ORG_IN_HTML = '&#60;b&#62;Acme &#38; Co&#60;/b&#62;';
const PASSWORD = WORLD_PASSWORD;
const UA = {
  chromeLinux:
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  firefoxWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
};
const NEW_SIGN_IN = /^New sign-in to your Atrium account$/;
const PASSWORD_CHANGED = /^Your Atrium password was changed$/;

/** The text part with plain line ends (SMTP carries CRLF). */
const textOf = (mail: ReceivedMail) => mail.text.replaceAll('\r\n', '\n');

/** Both parts name the organisation; the HTML part escapes it and everything else. */
function expectBothParts(mail: ReceivedMail, organizationName = ORG, inHtml = ORG_IN_HTML): void {
  expect(textOf(mail)).toContain(organizationName);
  expect(mail.html).toMatch(/^<!DOCTYPE html>/);
  expect(mail.html).toContain(inHtml);
  expect(mail.html).not.toContain('<b>');
}

describe('e-mails people receive', () => {
  const world = useSignInWorld();
  let admin: ReturnType<typeof as>;

  beforeAll(async () => {
    await world.server.db
      .updateTable('organizations')
      .set({ name: ORG })
      .where('id', '=', world.org.id)
      .execute();
    await addDomain(world.server.db, world.org.id, 'acme.test');
    admin = as(world.server, await signInAs(world.server.db, world.org.admin));
  });

  const member = async () =>
    createUser(world.server.db, world.org.id, {
      firstName: 'Mia',
      passwordHash: await hashPassword(PASSWORD),
    });

  /**
   * Signs in with password and code. The browser's sessions have ended by then (its other
   * cookies are gone); its device cookie, which outlives them, stays.
   */
  const signIn = (browser: TestBrowser, email: string, password = PASSWORD) => {
    for (const name of browser.cookies.keys()) if (name !== 'atrium_device') browser.cookies.delete(name);
    return signInToConsole(browser, world.mailbox, { email, password });
  };

  /** Invites someone, accepts in `browser` and follows the sign-in ticket; returns the invitation. */
  async function inviteAndAccept(browser: TestBrowser, localPart: string): Promise<ReceivedMail> {
    const created = await admin.post('/api/users', {
      firstName: 'Ivy',
      lastName: 'Invitee',
      localPart,
      domain: 'acme.test',
      groupIds: [],
      credential: 'invitation',
    });
    expect(created.status).toBe(201);
    const invitation = await world.mailbox.waitFor(`${localPart}@acme.test`, { subject: /invited/ });
    const token = new URL(await world.mailbox.waitForLink(`${localPart}@acme.test`)).pathname
      .split('/')
      .at(-1)!;
    const accepted = await browser.request(`/api/invitations/${token}/accept`, {
      json: { password: PASSWORD, confirmPassword: PASSWORD },
    });
    expect(accepted.status, accepted.body).toBe(200);
    const landed = await browser.follow(
      (JSON.parse(accepted.body) as { next: string }).next,
      leavesProviderAndApi,
    );
    expect(landed.location).toBe(`${world.origin}/application`);
    return invitation;
  }

  describe('one template for every message', () => {
    it('sign-in and password reset codes: the code in both parts, with the organisation', async () => {
      const user = await member();
      const after = world.mailbox.count;
      await signIn(new TestBrowser(world.origin), user.email);
      const signInMail = await world.mailbox.waitFor(user.email, { after, subject: /sign-in code/ });
      expectBothParts(signInMail);
      const code = /\b(\d{6})\b/.exec(textOf(signInMail))![1]!;
      expect(textOf(signInMail)).toContain(`Use this code to finish signing in to ${ORG} on Atrium:`);
      expect(signInMail.html).toContain(`>${code}</p>`);

      await world.server.app.inject({
        method: 'POST',
        url: '/api/password-reset/start',
        payload: { email: user.email },
      });
      const reset = await world.mailbox.waitFor(user.email, { after, subject: /password reset code/ });
      expectBothParts(reset);
      expect(textOf(reset)).toMatch(/\n {4}\d{6}\n/);
    });

    it('the sign-up code names the organisation being created, escaped in HTML', async () => {
      const visitor = new TestBrowser(world.origin);
      const site = await visitor.request('/api/signup/site', {
        json: { organizationName: '<i>Bell & Sons</i>', siteName: 'bell-sons' },
      });
      expect(site.status, site.body).toBe(200);
      const after = world.mailbox.count;
      await visitor.request('/api/signup/email', { json: { email: 'owner@bell.example' } });
      const mail = await world.mailbox.waitFor('owner@bell.example', { after, subject: /verification code/ });
      expectBothParts(mail, '<i>Bell & Sons</i>', '&#60;i&#62;Bell &#38; Sons&#60;/i&#62;');
      expect(textOf(mail)).toMatch(/\b\d{6}\b/);
    });

    it('invitation and reset links: a button in HTML, the link on its own line in the text', async () => {
      const invitation = await inviteAndAccept(new TestBrowser(world.origin), 'linda');
      expectBothParts(invitation);
      const link = /https?:\/\/\S+/.exec(textOf(invitation))![0];
      expect(link).toMatch(new RegExp(`^${world.origin}/invite/`));
      expect(textOf(invitation)).toContain(`Choose your password:\n${link}\n`);
      expect(invitation.html).toContain(`<a href="${link}"`);
      expect(invitation.html).toContain('>Choose your password</a>');

      const user = await member();
      const sent = await admin.post(`/api/users/${user.id}/password-link`);
      expect(sent.status).toBe(200);
      const reset = await world.mailbox.waitFor(user.email, { subject: /Choose a new password/ });
      expectBothParts(reset);
      expect(/https?:\/\/\S+/.exec(textOf(reset))![0]).toMatch(
        new RegExp(`^${world.origin}/reset-password/`),
      );
    });
  });

  describe('"your password was changed"', () => {
    /** The one such e-mail since `after`, which went to `email` only. */
    async function changedMailFor(email: string, after: number): Promise<ReceivedMail> {
      const mail = await world.mailbox.waitFor(email, { after, subject: PASSWORD_CHANGED });
      const all = world.mailbox.messages.slice(after).filter((m) => PASSWORD_CHANGED.test(m.subject));
      expect(all.map((m) => m.to)).toEqual([[email]]);
      expectBothParts(mail);
      expect(textOf(mail)).toMatch(/When: +\d{4}-\d\d-\d\d \d\d:\d\d UTC\n/);
      expect(textOf(mail)).toContain('If this was not you, contact your administrator');
      expect(textOf(mail)).toContain(`Sign in to Atrium:\n${world.origin}/login\n`);
      expect(mail.html).toContain(`<a href="${world.origin}/login"`);
      return mail;
    }

    it('after a change on /profile: "changed by you"', async () => {
      const user = await member();
      const own = as(world.server, await signInAs(world.server.db, user));
      const after = world.mailbox.count;
      const changed = await own.post('/api/profile/password', {
        currentPassword: PASSWORD,
        newPassword: 'my own new passphrase 7',
      });
      expect(changed.status).toBe(200);
      const mail = await changedMailFor(user.email, after);
      expect(textOf(mail)).toMatch(/How: +Changed by you on your profile\n/);
      expect(textOf(mail)).not.toContain('my own new passphrase 7');
    });

    it('after an administrator sets it: "set by an administrator", and the admin gets nothing', async () => {
      const user = await member();
      const after = world.mailbox.count;
      const set = await admin.put(`/api/users/${user.id}/password`, { password: 'set by the admin 1234' });
      expect(set.status).toBe(200);
      const mail = await changedMailFor(user.email, after);
      expect(textOf(mail)).toMatch(/How: +Set by an administrator\n/);
      expect(textOf(mail)).not.toContain('set by the admin 1234');
    });

    it('after a reset by code: "reset by e-mail"', async () => {
      const user = await member();
      const after = world.mailbox.count;
      const { code, done } = await resetPasswordWithMailedCode(world, user.email, 'reset by code passphrase');
      expect(done.statusCode, done.body).toBe(200);
      const mail = await changedMailFor(user.email, after);
      expect(textOf(mail)).toContain('Your password was reset');
      expect(textOf(mail)).toMatch(/How: +Reset by e-mail/);
      expect(textOf(mail)).not.toContain(code);
    });

    it('after a reset by a link an administrator sent: "reset by e-mail"', async () => {
      const user = await member();
      const after = world.mailbox.count;
      expect((await admin.post(`/api/users/${user.id}/password-link`)).status).toBe(200);
      const link = await world.mailbox.waitForLink(user.email, { after, subject: /Choose a new password/ });
      const token = new URL(link).pathname.split('/').at(-1)!;
      const accepted = await world.server.app.inject({
        method: 'POST',
        url: `/api/invitations/${token}/accept`,
        payload: { password: 'reset by link passphrase', confirmPassword: 'reset by link passphrase' },
      });
      expect(accepted.statusCode, accepted.body).toBe(200);
      const mail = await changedMailFor(user.email, after);
      expect(textOf(mail)).toMatch(/How: +Reset by e-mail/);
      expect(textOf(mail)).not.toContain(token);
    });
  });

  describe('"new sign-in to your Atrium account"', () => {
    const newSignIns = (after: number, email: string) =>
      world.mailbox.messages.slice(after).filter((m) => NEW_SIGN_IN.test(m.subject) && m.to.includes(email));

    it('is not sent for the sign-in an invitation ends with, nor that browser again; it is for another browser, once', async () => {
      const first = new TestBrowser(world.origin, { headers: { 'user-agent': UA.chromeLinux } });
      const after = world.mailbox.count;
      await inviteAndAccept(first, 'nora');
      const email = 'nora@acme.test';
      expect(first.setCookieLog.some((c) => /^atrium_device=[\w-]{43};.*HttpOnly/i.test(c))).toBe(true);
      await signIn(first, email);

      const second = new TestBrowser(world.origin, { headers: { 'user-agent': UA.firefoxWindows } });
      await signIn(second, email);
      const notice = await world.mailbox.waitFor(email, { after, subject: NEW_SIGN_IN });
      expect(newSignIns(after, email)).toHaveLength(1);
      expectBothParts(notice);
      expect(textOf(notice)).toMatch(/When: +\d{4}-\d\d-\d\d \d\d:\d\d UTC\n/);
      expect(textOf(notice)).toMatch(/Browser: +Firefox on Windows\n/);
      expect(textOf(notice)).toMatch(/IP address: +127\.0\.0\.1\n/);
      expect(textOf(notice)).toContain(
        'If this was not you, change your password and ask your administrator to end the session.',
      );
      expect(textOf(notice)).toContain(`${world.origin}/login`);
      expect(notice.html).toContain('Firefox on Windows');

      // The second browser again: nothing; a third one: one notice, about that one.
      const later = world.mailbox.count;
      await signIn(second, email);
      await signIn(new TestBrowser(world.origin, { headers: { 'user-agent': UA.safariIphone } }), email);
      await world.mailbox.waitFor(email, { after: later, subject: NEW_SIGN_IN });
      const notices = newSignIns(later, email);
      expect(notices).toHaveLength(1);
      expect(textOf(notices[0]!)).toMatch(/Browser: +Safari on iPhone\n/);
    });

    it('is not sent for the sign-in a sign-up ends with', async () => {
      const browser = new TestBrowser(world.origin, { headers: { 'user-agent': UA.chromeLinux } });
      const email = 'founder@founded.example';
      const after = world.mailbox.count;
      const site = await browser.request('/api/signup/site', {
        json: { organizationName: 'Founded', siteName: 'founded-org' },
      });
      expect(site.status, site.body).toBe(200);
      await browser.request('/api/signup/email', { json: { email } });
      const code = await world.mailbox.waitForCode(email, { after });
      expect((await browser.request('/api/signup/verify', { json: { code } })).status).toBe(200);
      const account = await browser.request('/api/signup/account', {
        json: { firstName: 'Fay', lastName: 'Founder', password: PASSWORD, passwordConfirmation: PASSWORD },
      });
      expect(account.status, account.body).toBe(200);
      const { redirectTo } = JSON.parse(account.body) as { redirectTo: string };
      expect((await browser.follow(redirectTo, leavesProviderAndApi)).location).toBe(`${world.origin}/setup`);
      await signIn(browser, email);

      await signIn(new TestBrowser(world.origin, { headers: { 'user-agent': UA.firefoxWindows } }), email);
      const notice = await world.mailbox.waitFor(email, { after, subject: NEW_SIGN_IN });
      expect(newSignIns(after, email)).toHaveLength(1);
      expect(textOf(notice)).toMatch(/Browser: +Firefox on Windows\n/);
      expectBothParts(notice, 'Founded', 'Founded');
    });
  });
});
