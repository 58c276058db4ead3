import { readFileSync } from 'node:fs';
import type { MailboxesPage } from '@atrium/contracts/mail-mailboxes';
import type { MailDomainsResponse } from '@atrium/contracts/mail-settings';
import { describe, expect, it } from 'vitest';
import { readOutbox } from '../../src/lib/mail.ts';
import { createAppPassword } from '../support/app-passwords.ts';
import { dryRun } from '../migration/helpers.ts';
import { signInAs } from '../support/fixtures.ts';
import { useStarted } from '../support/use-started.ts';
import { createMailWorld, imapSignIn, inboxSubjects, sendMail } from './mail-world.ts';

describe('mail through Debian’s Postfix and Dovecot, with Atrium as their directory', () => {
  const world = useStarted(() => createMailWorld());

  it('delivers a message sent over SMTP to a user’s address into their INBOX', async () => {
    const user = await world.user();
    const { password } = await createAppPassword(world.server, user, 'Thunderbird');
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

  it('refuses an unknown recipient at RCPT time, and a domain Atrium does not serve', async () => {
    const send = (to: string) =>
      sendMail(world, { from: 'someone@example.net', to, subject: 'Who?', text: 'x' }).then(
        () => null,
        (error: { responseCode?: number; response?: string }) => error,
      );
    const unknown = await send(`nobody@${world.domain}`);
    expect(unknown?.responseCode, world.mail.logs()).toBe(550);
    expect(unknown?.response).toMatch(/User unknown|Recipient address rejected/i);
    const elsewhere = await send('someone@not-served.example.org');
    expect(elsewhere?.responseCode).toBe(554);
    expect(elsewhere?.response).toMatch(/Relay access denied/i);
    // An invited user's mailbox exists from the start (issue 42 item 1): accepted, not refused.
    const invited = await world.user();
    await world.server.db
      .updateTable('users')
      .set({ status: 'invited' })
      .where('id', '=', invited.id)
      .execute();
    expect(await send(invited.email), world.mail.logs()).toBeNull();
  });

  it('invites to the personal address; mail sent before the person signs in waits in the new mailbox', async () => {
    const admin = await signInAs(world.server.db, world.org.admin);
    const local = `new${Date.now()}`;
    const email = `${local}@${world.domain}`;
    const add = (body: object) =>
      world.server.app.inject({
        method: 'POST',
        url: '/api/users',
        headers: admin.headers,
        payload: { firstName: 'Nina', lastName: 'New', localPart: local, domain: world.domain, ...body },
      });
    // Atrium hosts this domain's mail: the own address reaches only a mailbox nobody can open yet.
    const refused = await add({ credential: 'invitation' });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error.message).toBe(
      `${email} has no mailbox until the person signs in, and no personal address is given: add one or set a password`,
    );
    const domains = await world.server.app.inject({
      url: '/api/users/email-domains',
      headers: admin.headers,
    });
    expect(domains.json().mailHosted).toEqual([world.domain]);

    const added = await add({ credential: 'invitation', personalEmail: ' Nina.Home@Example.NET ' });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toMatchObject({ invited: true, invitationSentTo: 'nina.home@example.net' });
    const [invitation] = await readOutbox(world.server.db, world.server.config, {
      to: 'nina.home@example.net',
    });
    expect(invitation?.subject).toMatch(/You have been invited/);
    expect(invitation?.text).toContain(email);
    expect(await readOutbox(world.server.db, world.server.config, { to: email })).toEqual([]);
    const detail = await world.server.app.inject({
      url: `/api/users/${added.json().user.id}`,
      headers: admin.headers,
    });
    expect(detail.json()).toMatchObject({ status: 'invited', personalEmail: 'nina.home@example.net' });

    // A colleague writes before Nina has signed in: kept in her mailbox.
    await sendMail(world, {
      from: 'someone@example.net',
      to: email,
      subject: 'Welcome aboard',
      text: 'Hi Nina',
    });
    await world.mail.drainQueue();

    // Nina opens the link from her personal mailbox and chooses a password…
    const token = /\/invite\/([^\s"<>)]+)/.exec(invitation!.text)![1]!;
    const accepted = await world.server.app.inject({
      method: 'POST',
      url: `/api/invitations/${token}/accept`,
      payload: { password: 'correct horse battery staple', confirmPassword: 'correct horse battery staple' },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    // …signs in, makes an app password for her mail app and reads the message.
    const nina = { id: added.json().user.id as string, email, organizationId: world.org.id };
    const { password } = await createAppPassword(world.server, nina, 'Phone');
    const imap = await imapSignIn(world, { user: email, pass: password });
    try {
      expect(await inboxSubjects(imap), world.mail.logs()).toEqual(['Welcome aboard']);
    } finally {
      await imap.logout();
    }
  });

  it('lists an imported invited user without a personal address as a row error while Atrium hosts the mail', async () => {
    const admin = await signInAs(world.server.db, world.org.admin);
    const csv = [
      'First name,Last name,E-mail,Personal email,Send invitation',
      `Ann,Away,ann@${world.domain},,yes`,
      `Bea,Home,bea@${world.domain},bea@home.example,yes`,
      `Cy,Password,cy@${world.domain},,no`,
    ].join('\n');
    const result = await dryRun(world.server, admin, csv);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body.counts).toMatchObject({ create: 2, errors: 1 });
    expect(result.body.errors).toEqual([
      expect.objectContaining({
        row: 2,
        message: `ann@${world.domain} has no mailbox until the person signs in, and no personal address is given: add one or set a password`,
      }),
    ]);
  });

  it('enforces the mail plan’s quota: a message larger than the mailbox is bounced, not stored', async () => {
    const sender = await world.user();
    const user = await world.user();
    const { password } = await createAppPassword(world.server, user, 'Thunderbird');
    const senderPassword = (await createAppPassword(world.server, sender, 'Thunderbird')).password;
    // The plan gives each mailbox 1 MiB (mail-world.ts); this message is 1.5 MiB.
    const big = 'x'.repeat(76).concat('\n').repeat(20_000);
    await sendMail(world, { from: sender.email, to: user.email, subject: 'Too big', text: big });
    await sendMail(world, { from: sender.email, to: user.email, subject: 'Small', text: 'fits' });
    await world.mail.drainQueue();

    const imap = await imapSignIn(world, { user: user.email, pass: password });
    try {
      expect(await inboxSubjects(imap), world.mail.logs()).toEqual(['Small']);
      const quota = await imap.getQuota('INBOX');
      expect(quota && quota.storage?.limit).toBe(1024 * 1024);
    } finally {
      await imap.logout();
    }
    // The sender (here, a mailbox of the same organisation) gets Postfix's bounce.
    const senderImap = await imapSignIn(world, { user: sender.email, pass: senderPassword });
    try {
      const subjects = await inboxSubjects(senderImap);
      expect(
        subjects.some((s) => /Undelivered|returned/i.test(s)),
        world.mail.logs(),
      ).toBe(true);
    } finally {
      await senderImap.logout();
    }
  });

  it('refuses mail for a full mailbox at RCPT on port 25 (Dovecot’s quota-status), so nothing bounces', async () => {
    const sender = await world.user();
    const full = await world.user();
    const roomy = await world.user();
    const { password } = await createAppPassword(world.server, full, 'Thunderbird');
    const senderPassword = (await createAppPassword(world.server, sender, 'Thunderbird')).password;
    // Fill the 1 MiB mailbox: about 1,000,000 bytes fit; 77,000 more go over by less than
    // Dovecot's grace for the last message (10 %), leaving the mailbox over its quota.
    const line = 'x'.repeat(76).concat('\n');
    await sendMail(world, { from: sender.email, to: full.email, subject: 'Big', text: line.repeat(13_000) });
    await world.mail.drainQueue();
    await sendMail(world, { from: sender.email, to: full.email, subject: 'Last', text: line.repeat(1_000) });
    await world.mail.drainQueue();

    const refused = await sendMail(world, {
      from: sender.email,
      to: full.email,
      subject: 'No room',
      text: 'x',
    }).then(
      () => null,
      (error: { responseCode?: number; response?: string; command?: string }) => error,
    );
    expect(refused?.responseCode, world.mail.logs()).toBe(552);
    expect(refused?.response).toMatch(/^552 5\.2\.2 .*Mailbox is full/);
    expect(refused?.command).toMatch(/RCPT/i);

    // A mailbox with room still takes mail (250), and refuses at RCPT only a message whose
    // declared size (SMTP SIZE) it has no room for.
    await sendMail(world, { from: sender.email, to: roomy.email, subject: 'Fits', text: 'x' });
    const declared = await sendMail(world, {
      from: sender.email,
      to: roomy.email,
      subject: 'Declared too big',
      text: 'x',
      envelope: { from: sender.email, to: roomy.email, size: 2_000_000 },
    }).then(
      () => null,
      (error: { responseCode?: number }) => error,
    );
    expect(declared?.responseCode, world.mail.logs()).toBe(552);
    await world.mail.drainQueue();

    const imap = await imapSignIn(world, { user: full.email, pass: password });
    try {
      expect(await inboxSubjects(imap), world.mail.logs()).toEqual(['Big', 'Last']);
    } finally {
      await imap.logout();
    }
    // Nothing was accepted for the full mailbox, so nothing bounced to the sender.
    const senderImap = await imapSignIn(world, { user: sender.email, pass: senderPassword });
    try {
      expect(await inboxSubjects(senderImap), world.mail.logs()).toEqual([]);
    } finally {
      await senderImap.logout();
    }
    const log = readFileSync(world.mail.postfixLog, 'utf8');
    expect(log).not.toMatch(new RegExp(`to=<${full.email.replace(/[.]/g, '\\.')}>.*status=bounced`));
  });

  it('shows each mailbox’s usage as Dovecot reports it, and when Postfix and Dovecot last asked Atrium', async () => {
    const user = await world.user();
    const before = Date.now();
    const admin = await signInAs(world.server.db, world.org.admin);
    const mailboxOf = async () => {
      const response = await world.server.app.inject({ url: '/api/mail/mailboxes', headers: admin.headers });
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json<MailboxesPage>();
      return { page, mailbox: page.mailboxes.find((m) => m.email === user.email) };
    };
    // One delivery after the other: quota_clone writes what each delivery's process counted once
    // its transaction is done, and of two deliveries at once the one that counted first may write
    // last (Dovecot's own race; the next delivery puts the count right).
    let seen = await mailboxOf();
    for (const [i, subject] of ['First', 'Second'].entries()) {
      await sendMail(world, {
        from: 'someone@example.net',
        to: user.email,
        subject,
        text: 'Hello '.repeat(200),
      });
      await world.mail.drainQueue();
      // The write reaches Atrium a moment after the delivery.
      const deadline = Date.now() + 10_000;
      seen = await mailboxOf();
      while (seen.mailbox?.messages !== i + 1 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        seen = await mailboxOf();
      }
    }
    expect(seen.mailbox, world.mail.logs()).toMatchObject({ messages: 2, quotaBytes: 1024 * 1024 });
    expect(seen.mailbox!.usedBytes).toBeGreaterThan(2 * 1200);
    expect(seen.mailbox!.usedBytes).toBeLessThan(20_000);
    expect(seen.page.quotaPerMailboxMb).toBe(1);
    // The admin has a mailbox too, with nothing reported yet.
    expect(seen.page.mailboxes.find((m) => m.email === world.org.admin.email)).toMatchObject({
      usedBytes: null,
      messages: null,
    });

    const domains = await world.server.app.inject({ url: '/api/mail/domains', headers: admin.headers });
    const servers = domains.json<MailDomainsResponse>().mailServers;
    for (const at of [servers.postfixLastAskedAt, servers.dovecotLastAskedAt]) {
      expect(at).not.toBeNull();
      // Written at most once a minute per process: the first request of this file's run counts.
      expect(Date.parse(at!)).toBeGreaterThan(before - 5 * 60_000);
      expect(Date.parse(at!)).toBeLessThanOrEqual(Date.now());
    }
  });
});
