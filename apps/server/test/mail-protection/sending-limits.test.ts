import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAppPassword } from '../support/app-passwords.ts';
import type { TestUser } from '../support/fixtures.ts';
import { createMailWorld, type MailWorld } from '../mail/mail-world.ts';

// Sending limits with Debian's Postfix: submission asks Atrium's policy service at the end of each
// message; past the plan's recipients per hour a message is held with a 4xx and the admins are
// told once. The plan here allows 100 recipients an hour per user and 110 for the organisation.

let world: MailWorld;
let ann: TestUser;
let bob: TestUser;
let annPassword: string;
let bobPassword: string;

beforeAll(async () => {
  const plans = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-limits-')), 'plans.json');
  writeFileSync(
    plans,
    JSON.stringify({
      plans: [
        {
          key: 'tiny',
          title: 'Tiny',
          mailboxQuotaMb: 50,
          maxDomains: 5,
          apps: 'all',
          sendPerUserPerHour: 100,
          sendPerOrganizationPerHour: 110,
        },
      ],
    }),
  );
  world = await createMailWorld({ env: { PLAN_CATALOG: plans } });
  ann = await world.user();
  bob = await world.user();
  annPassword = (await createAppPassword(world.server, ann, 'Laptop')).password;
  bobPassword = (await createAppPassword(world.server, bob, 'Phone')).password;
}, 60_000);
afterAll(async () => {
  await world?.close();
});

/** One SMTP connection to submission for all of a user's messages, as a mail app keeps. */
function submission(user: TestUser, pass: string) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port: world.mail.ports.submission,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: 1,
    maxMessages: Infinity,
    auth: { user: user.email, pass },
  });
}

const refusal = async (send: Promise<unknown>) => {
  try {
    await send;
    return null;
  } catch (error) {
    return error as { responseCode?: number; response?: string };
  }
};

const heldNotices = () =>
  world.server.db
    .selectFrom('notifications')
    .select(['title', 'body', 'link'])
    .where('user_id', '=', world.org.admin.id)
    .where('kind', '=', 'mail.sending_limit')
    .orderBy('created_at')
    .execute();

it('holds the 101st message of the hour with a 4xx, tells the admins once, and a colleague still sends', async () => {
  const annMail = submission(ann, annPassword);
  try {
    for (let i = 1; i <= 100; i++) {
      await annMail.sendMail({ from: ann.email, to: bob.email, subject: `Note ${i}`, text: 'Hello' });
    }
    const held = await refusal(
      annMail.sendMail({ from: ann.email, to: bob.email, subject: 'Note 101', text: 'Hello' }),
    );
    expect(held?.responseCode, world.mail.logs()).toBe(451);
    expect(held?.response).toContain('Sending limit reached');
    // Held again, and still one notification for the hour.
    const again = await refusal(
      annMail.sendMail({ from: ann.email, to: bob.email, subject: 'Note 102', text: 'Hello' }),
    );
    expect(again?.responseCode).toBe(451);
  } finally {
    annMail.close();
  }
  const notices = await heldNotices();
  expect(notices).toHaveLength(1);
  expect(notices[0]!.body).toContain(ann.email);
  expect(notices[0]!.link).toBe(`/users/${ann.id}`);

  const bobMail = submission(bob, bobPassword);
  try {
    // Ann's 100 and Bob's 1: within the organisation's 110.
    await bobMail.sendMail({ from: bob.email, to: ann.email, subject: 'Lunch?', text: 'At noon' });
    // Ten more recipients would take the organisation to 111.
    const colleagues = await Promise.all(Array.from({ length: 10 }, () => world.user()));
    const overOrganisation = await refusal(
      bobMail.sendMail({
        from: bob.email,
        to: colleagues.map((c) => c.email),
        subject: 'All hands',
        text: 'Meeting',
      }),
    );
    expect(overOrganisation?.responseCode).toBe(451);
    expect(overOrganisation?.response).toContain("your organisation's mail");
  } finally {
    bobMail.close();
  }
  const after = await heldNotices();
  expect(after).toHaveLength(2);
  expect(after[1]!.title).toBe('Your organisation reached its sending limit');
}, 120_000);
