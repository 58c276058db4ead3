import type { MailboxesPage } from '@atrium/contracts/mail-mailboxes';
import type { MailDomainsResponse } from '@atrium/contracts/mail-settings';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDomain, addVerifiedDomain } from '../domains/domain-helpers.ts';
import { useAdminWorldWithDns } from '../support/admin-world.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';

const t = useAdminWorldWithDns({ env: { DNS_TIMEOUT_MS: '500', MAIL_HOST: 'mail.atrium.test' } });
let otherAdmin: TestSession;
let member: TestSession;
let otherAdminEmail: string;

beforeAll(async () => {
  member = await signInAs(t.db, await createUser(t.db, t.org.id));
  const other = await createOrganizationWithAdmin(t.db);
  otherAdminEmail = other.admin.email;
  otherAdmin = await signInAs(t.db, other.admin);
});

async function mailDomains(session: TestSession) {
  return t.app.inject({ url: '/api/mail/domains', headers: session.headers });
}

describe('Mail Settings: whether mail works for each domain', () => {
  it("gives each verified domain's mail records against DNS, and says when all are published", async () => {
    const ready = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'ready.example');
    const half = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'half.example');
    await addDomain(t.app, t.adminSession, 'pending.example');
    const first = (await mailDomains(t.adminSession)).json<MailDomainsResponse>();
    const expected = first.domains.find((d) => d.domain.id === ready.id)!.records;
    const value = (purpose: string) => expected.find((r) => r.purpose === purpose)!.value;
    t.dns.set('ready.example', {
      TXT: [ready.verificationRecord.value, value('spf')],
      MX: [{ exchange: 'mail.atrium.test', priority: 10 }],
    });
    t.dns.set('atrium._domainkey.ready.example', { TXT: [value('dkim')] });
    t.dns.set('_dmarc.ready.example', { TXT: [value('dmarc')] });
    // The mail host's address and SPF record, which the domain's include: reads.
    t.dns.set('mail.atrium.test', { A: ['127.0.0.1'], TXT: ['v=spf1 a -all'] });
    t.dns.set('half.example', {
      TXT: [half.verificationRecord.value],
      MX: [{ exchange: 'mx.other-provider.example', priority: 5 }],
    });

    const response = await mailDomains(t.adminSession);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<MailDomainsResponse>();
    expect(body.mailConfigured).toBe(false);
    // Nothing has asked this deployment yet.
    expect(body.mailServers).toEqual({ postfixLastAskedAt: null, dovecotLastAskedAt: null });
    expect(body.mailHost).toBe('mail.atrium.test');
    // Verified domains only; the pending one has no mail yet.
    expect(body.domains.map((d) => d.domain.name).sort()).toEqual(['half.example', 'ready.example']);
    const byName = Object.fromEntries(body.domains.map((d) => [d.domain.name, d]));
    expect(byName['ready.example']!.ready).toBe(true);
    expect(byName['ready.example']!.records.map((r) => [r.purpose, r.status])).toEqual([
      ['mx', 'ok'],
      ['spf', 'ok'],
      ['dkim', 'ok'],
      ['dmarc', 'ok'],
    ]);
    // The site's CNAME is not a mail record.
    expect(byName['half.example']!.ready).toBe(false);
    expect(byName['half.example']!.records.map((r) => [r.purpose, r.status])).toEqual([
      ['mx', 'different'],
      ['spf', 'missing'],
      ['dkim', 'missing'],
      ['dmarc', 'missing'],
    ]);
    expect(byName['half.example']!.records[0]!.found).toEqual(['5 mx.other-provider.example']);
  });

  it("shows another organisation's admin only their own domains, and is for admins only", async () => {
    const other = (await mailDomains(otherAdmin)).json<MailDomainsResponse>();
    expect(other.domains).toEqual([]);
    expect((await mailDomains(member)).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/mail/domains' })).statusCode).toBe(401);
  });
});

describe('Mail Settings: the mailboxes of the mail plan', () => {
  const page = (session: TestSession, cursor?: string) =>
    t.app.inject({
      url: `/api/mail/mailboxes${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
      headers: session.headers,
    });

  it('lists every mailbox in address order, 50 a page, with the plan’s quota and the usage Dovecot reported', async () => {
    for (let i = 0; i < 52; i++) {
      await createUser(t.db, t.org.id, { email: `box${String(i).padStart(2, '0')}@boxes.example` });
    }
    const invited = await createUser(t.db, t.org.id, { email: 'box-invited@boxes.example' });
    await t.db.updateTable('users').set({ status: 'invited' }).where('id', '=', invited.id).execute();
    const reported = await t.db
      .selectFrom('users')
      .select(['id', 'organization_id'])
      .where('email', '=', 'box03@boxes.example')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('mailbox_usage')
      .values({
        user_id: reported.id,
        organization_id: reported.organization_id,
        storage_bytes: 5000,
        messages: 7,
      })
      .execute();

    const first = await page(t.adminSession);
    expect(first.statusCode, first.body).toBe(200);
    const one = first.json<MailboxesPage>();
    expect(one.mailboxes).toHaveLength(50);
    expect(one.quotaPerMailboxMb).toBeGreaterThan(0);
    const emails = one.mailboxes.map((m) => m.email);
    expect(emails).toEqual([...emails].sort());
    expect(one.mailboxes.find((m) => m.email === 'box03@boxes.example')).toMatchObject({
      usedBytes: 5000,
      messages: 7,
      quotaBytes: one.quotaPerMailboxMb * 1024 * 1024,
      status: 'active',
    });
    expect(one.mailboxes.find((m) => m.email === 'box04@boxes.example')).toMatchObject({
      usedBytes: null,
      messages: null,
    });
    const two = (await page(t.adminSession, one.nextCursor!)).json<MailboxesPage>();
    const all = [...emails, ...two.mailboxes.map((m) => m.email)];
    expect(two.nextCursor).toBeNull();
    // Every mailbox once: 52 users, the admin, the member and the invited user (whose mailbox
    // exists from the start, issue 42 item 1).
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(55);
    expect(all).toContain('box-invited@boxes.example');

    expect((await page(t.adminSession, 'not-a-cursor')).statusCode).toBe(400);
  });

  it("shows another organisation's admin only their own mailboxes, and is for admins only", async () => {
    const other = (await page(otherAdmin)).json<MailboxesPage>();
    expect(other.mailboxes.map((m) => m.email)).toEqual([otherAdminEmail]);
    expect((await page(member)).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/mail/mailboxes' })).statusCode).toBe(401);
  });
});
