import type { MailProtectionResponse, SenderEntry, SenderListPage } from '@atrium/contracts/mail-protection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rspamdMapToken } from '../../src/modules/mail-protection/rspamd-maps.ts';
import { createOrganizationWithAdmin, createUser, signInAs } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from '../users/helpers.ts';

// Spam protection through the API (Mail Settings and the profile) and the maps rspamd polls.
// rspamd reading these maps: rspamd-policy.test.ts.

let t: TestApp;
let org: Awaited<ReturnType<typeof createOrganizationWithAdmin>>;
let admin: ReturnType<typeof as>;
let member: ReturnType<typeof as>;
let memberEmail: string;
let memberId: string;
let other: ReturnType<typeof as>;
const DOMAIN = 'protect.example.com';

beforeAll(async () => {
  t = await createTestApp();
  org = await createOrganizationWithAdmin(t.db);
  await addDomain(t.db, org.id, DOMAIN);
  await addDomain(t.db, org.id, 'second.example.com');
  await addDomain(t.db, org.id, 'pending-protect.example.com', 'pending');
  admin = as(t, await signInAs(t.db, org.admin));
  const user = await createUser(t.db, org.id, { email: `member@${DOMAIN}` });
  memberEmail = user.email;
  memberId = user.id;
  member = as(t, await signInAs(t.db, user));
  const elsewhere = await createOrganizationWithAdmin(t.db);
  other = as(t, await signInAs(t.db, elsewhere.admin));
});
afterAll(async () => {
  await t?.close();
});

const map = (name: string, headers: Record<string, string> = {}, token = rspamdMapToken(t.config.secret)) =>
  t.app.inject({ method: 'GET', url: `/api/mail/rspamd/${token}/${name}`, headers });

describe('spam settings', () => {
  it('starts at Standard with greylisting on and the plan’s sending limits; only admins change it', async () => {
    const got = await admin.get('/api/mail/protection');
    expect(got.status).toBe(200);
    expect(got.body as MailProtectionResponse).toEqual({
      spam: { sensitivity: 'standard', greylisting: true },
      // The fixtures' organisation is on Enterprise.
      sendingLimits: { perUserPerHour: 500, perOrganizationPerHour: 20_000 },
    });
    expect((await member.get('/api/mail/protection')).status).toBe(403);
    expect(
      (await member.put('/api/mail/protection/spam', { sensitivity: 'relaxed', greylisting: true })).status,
    ).toBe(403);
    expect(
      (await admin.put('/api/mail/protection/spam', { sensitivity: 'lax', greylisting: true })).status,
    ).toBe(400);
  });

  it('serves a settings rule for an organisation off the default, keyed by its verified domains', async () => {
    expect((await map('settings')).body).not.toContain(DOMAIN);
    const changed = await admin.put('/api/mail/protection/spam', {
      sensitivity: 'strict',
      greylisting: false,
    });
    expect(changed.status).toBe(200);
    expect((changed.body as MailProtectionResponse).spam).toEqual({
      sensitivity: 'strict',
      greylisting: false,
    });
    const body = (await map('settings')).body;
    expect(body).toContain(`rcpt = ["@${DOMAIN}", "@second.example.com"];`);
    expect(body).toContain('actions { "add header" = 4; reject = 10; }');
    expect(body).toContain('symbols_disabled = ["GREYLIST_CHECK", "GREYLIST_SAVE"];');
    expect(body).not.toContain('pending-protect');
    // Another organisation's admin sees their own default settings, not these.
    expect(((await other.get('/api/mail/protection')).body as MailProtectionResponse).spam.sensitivity).toBe(
      'standard',
    );
    await admin.put('/api/mail/protection/spam', { sensitivity: 'relaxed', greylisting: true });
    const relaxed = (await map('settings')).body;
    expect(relaxed).toContain('actions { "add header" = 9; reject = 20; }');
    expect(relaxed).not.toContain('symbols_disabled');
  });
});

describe('sender lists', () => {
  it('allows and blocks senders for the organisation, one list per sender, and the maps hold them', async () => {
    const allowed = await admin.post('/api/mail/senders', {
      list: 'allow',
      value: ' Partner@Supplier.example ',
    });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(201);
    expect(allowed.body as SenderEntry).toMatchObject({ list: 'allow', value: 'partner@supplier.example' });
    expect((await admin.post('/api/mail/senders', { list: 'block', value: 'spam.example' })).status).toBe(
      201,
    );
    const again = await admin.post('/api/mail/senders', { list: 'block', value: 'partner@supplier.example' });
    expect(again.status).toBe(400);
    expect(JSON.stringify(again.body)).toContain('already on the allowed senders');
    expect((await admin.post('/api/mail/senders', { list: 'allow', value: 'not an address' })).status).toBe(
      400,
    );
    expect((await member.post('/api/mail/senders', { list: 'allow', value: 'x.example' })).status).toBe(403);

    const allow = (await map('allow')).body;
    expect(allow).toContain(`${DOMAIN}:partner@supplier.example\n`);
    expect(allow).toContain('second.example.com:partner@supplier.example\n');
    expect(allow).not.toContain('pending-protect');
    expect((await map('block')).body).toContain(`${DOMAIN}:spam.example\n`);

    const page = (await admin.get('/api/mail/senders?list=block')).body as SenderListPage;
    expect(page.entries.map((e) => e.value)).toEqual(['spam.example']);
    expect((await other.get('/api/mail/senders?list=block')).body).toEqual({ entries: [], nextCursor: null });
    // Another organisation's admin cannot remove it.
    expect((await other.delete(`/api/mail/senders/${page.entries[0]!.id}`)).status).toBe(404);
    expect((await admin.delete(`/api/mail/senders/${page.entries[0]!.id}`)).status).toBe(200);
    expect((await map('block')).body).not.toContain('spam.example');
  });

  it('pages a long list 50 at a time in order', async () => {
    for (let i = 0; i < 55; i++) {
      const value = `bulk${String(i).padStart(2, '0')}.example`;
      expect((await admin.post('/api/mail/senders', { list: 'block', value })).status).toBe(201);
    }
    const first = (await admin.get('/api/mail/senders?list=block')).body as SenderListPage;
    expect(first.entries).toHaveLength(50);
    expect(first.entries[0]!.value).toBe('bulk00.example');
    const second = (await admin.get(`/api/mail/senders?list=block&cursor=${first.nextCursor}`))
      .body as SenderListPage;
    expect(second.entries.map((e) => e.value).filter((v) => v.startsWith('bulk'))).toEqual([
      'bulk50.example',
      'bulk51.example',
      'bulk52.example',
      'bulk53.example',
      'bulk54.example',
    ]);
    expect(second.nextCursor).toBeNull();
  });

  it('lets a person keep their own lists, keyed by their address, which nobody else changes', async () => {
    const mine = await member.post('/api/profile/senders', {
      list: 'block',
      value: 'newsletter@shop.example',
    });
    expect(mine.status).toBe(201);
    expect((await map('block')).body).toContain(`${memberEmail}:newsletter@shop.example\n`);
    // Their aliases get the same lists, from the moment the alias exists.
    const alias = await admin.post('/api/mail/aliases', {
      userId: memberId,
      localPart: 'sales',
      domain: DOMAIN,
    });
    expect(alias.status).toBe(201);
    expect((await map('block')).body).toContain(`sales@${DOMAIN}:newsletter@shop.example\n`);
    expect(((await admin.get('/api/profile/senders?list=block')).body as SenderListPage).entries).toEqual([]);
    expect((await admin.delete(`/api/profile/senders/${(mine.body as SenderEntry).id}`)).status).toBe(404);
    expect((await member.delete(`/api/profile/senders/${(mine.body as SenderEntry).id}`)).status).toBe(200);
    expect((await map('block')).body).not.toContain('newsletter@shop.example');
  });
});

describe('the maps rspamd polls', () => {
  it('answers 304 while nothing changed, and the new map once something did', async () => {
    const first = await map('allow');
    const etag = first.headers.etag as string;
    expect(etag).toBeTruthy();
    expect((await map('allow', { 'if-none-match': etag })).statusCode).toBe(304);
    await member.post('/api/profile/senders', { list: 'allow', value: 'friend.example' });
    const changed = await map('allow', { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.body).toContain(`${memberEmail}:friend.example\n`);
  });

  it('is a 404 without the token or through a proxy', async () => {
    expect((await map('allow', {}, 'x'.repeat(32))).statusCode).toBe(404);
    expect((await map('allow', { 'x-forwarded-for': '203.0.113.9' })).statusCode).toBe(404);
  });
});
