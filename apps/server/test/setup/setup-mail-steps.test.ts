import type { Dashboard } from '@atrium/contracts/dashboard';
import type { DnsMapping } from '@atrium/contracts/domains';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { inboundMailTable } from '../../src/modules/mail/lookups/inbound-mail.ts';
import { insertSetupRecord } from '../../src/modules/setup/setup.repository.ts';
import { addVerifiedDomain, dnsMappingOf } from '../domains/domain-helpers.ts';
import { createMailWorld, imapSignIn, inboxSubjects, sendMail, type MailWorld } from '../mail/mail-world.ts';
import { createAppPassword } from '../support/app-passwords.ts';
import { TestDnsServer, type ZoneRecords } from '../support/dns-server.ts';
import { createOrganizationWithAdmin, signInAs, type TestSession } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain } from '../users/helpers.ts';

// Issue 42 item 2: the checklist tells the truth about mail. "Publish your mail records" is done
// only when the last look-up found every record of every verified domain (DNS on loopback);
// "Mail is flowing" once another server gave Postfix a message on port 25 for one of its domains
// (Debian's Postfix and Dovecot on loopback): a colleague's message through submission is not it.

const MAIL_HOST = 'mail.atrium.test';
let t: TestApp;
let dns: TestDnsServer;
let withoutMail: TestApp;
let world: MailWorld;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  const env = {
    DNS_SERVERS: dns.address,
    DNS_TIMEOUT_MS: '500',
    SITE_BASE_DOMAIN: 'atrium.test',
    MAIL_HOST,
  };
  // Mail set up on the server: Postfix's socketmap and Dovecot's dict ask this Atrium.
  t = await createTestApp({
    env: {
      ...env,
      MAIL_SOCKETMAP_ADDRESS: `127.0.0.1:${await freePort()}`,
      MAIL_DICT_SOCKET: path.join(mkdtempSync(path.join(tmpdir(), 'atrium-dict-')), 'dict.sock'),
    },
  });
  withoutMail = await createTestApp({ env });
  // Postfix and Dovecot, configured by mail-config, asking an Atrium of their own.
  world = await createMailWorld();
});
afterAll(async () => {
  await world?.close();
  await t?.close();
  await withoutMail?.close();
  await dns?.close();
});

async function setupOf(app: TestApp, admin: TestSession): Promise<Dashboard['setup']> {
  const response = await app.app.inject({ url: '/api/dashboard', headers: admin.headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Dashboard>().setup;
}

/** The messages Dovecot last reported for a mailbox (quota_clone), or null before its first report. */
async function messagesIn(address: string): Promise<number | null> {
  const row = await world.server.db
    .selectFrom('mailbox_usage')
    .innerJoin('users', 'users.id', 'mailbox_usage.user_id')
    .select('mailbox_usage.messages')
    .where('users.email', '=', address)
    .executeTakeFirst();
  return row ? Number(row.messages) : null;
}

async function firstReceivedOf(app: TestApp, organizationId: string): Promise<Date | null> {
  const row = await app.db
    .selectFrom('organizations')
    .select('mail_first_received_at')
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return row.mail_first_received_at;
}

const stepOf = (setup: Dashboard['setup'], step: string) => setup.mailSteps.find((s) => s.step === step)!;

/** Publishes every record of the mapping on the loopback DNS server, beside the verification record. */
function publish(mapping: DnsMapping, verification: string, except: string[] = []): void {
  const zone = new Map<string, ZoneRecords>();
  const at = (host: string) => zone.get(host) ?? zone.set(host, {}).get(host)!;
  at(mapping.domain.name).TXT = [verification];
  for (const record of mapping.records) {
    if (except.includes(record.purpose)) continue;
    const entry = at(record.host);
    const parts = record.value.split(' ');
    if (record.type === 'MX') entry.MX = [{ priority: Number(parts[0]), exchange: parts[1]! }];
    if (record.type === 'TXT') entry.TXT = [...(entry.TXT ?? []), record.value];
    if (record.type === 'CNAME') entry.CNAME = record.value;
    if (record.type === 'SRV') {
      const [priority, weight, port, target] = parts;
      entry.SRV = [
        { priority: Number(priority), weight: Number(weight), port: Number(port), target: target! },
      ];
    }
  }
  for (const [host, records] of zone) dns.set(host, records);
  // The mail host's address and SPF record, which the domain's include: reads.
  dns.set(MAIL_HOST, { A: ['127.0.0.1'], TXT: ['v=spf1 a -all'] });
}

describe('the setup checklist’s mail steps', () => {
  it('keeps “Publish your mail records” open, with the missing count, until the records are found', async () => {
    const org = await createOrganizationWithAdmin(t.db, { siteName: 'mailsteps' });
    await insertSetupRecord(t.db, org.id);
    const admin = await signInAs(t.db, org.admin);
    // No verified domain yet: nothing to publish, no step.
    expect((await setupOf(t, admin)).mailSteps).toEqual([]);

    const domain = await addVerifiedDomain(t.app, admin, dns, 'records.example');
    // Verified but never looked up: open, and it says so.
    expect(stepOf(await setupOf(t, admin), 'mail_records')).toEqual({
      step: 'mail_records',
      done: false,
      detail: 'The records of records.example have not been checked yet.',
      domainId: domain.id,
    });

    // The domain page looks the records up (nothing published): 14 of 14 missing.
    const first = await dnsMappingOf(t.app, admin, domain.id);
    expect(first.records).toHaveLength(14);
    expect(first.records.every((r) => r.status === 'missing')).toBe(true);
    expect(stepOf(await setupOf(t, admin), 'mail_records')).toMatchObject({
      done: false,
      detail: '14 of 14 records are not published yet for records.example.',
      domainId: domain.id,
    });

    // Three left out, then looked up again ("Check all records now"): 3 of 14.
    publish(first, domain.verificationRecord.value, ['dmarc', 'site', 'autodiscover']);
    const partial = await dnsMappingOf(t.app, admin, domain.id);
    expect(partial.records.filter((r) => r.status === 'ok')).toHaveLength(11);
    const open = await setupOf(t, admin);
    expect(stepOf(open, 'mail_records')).toMatchObject({
      done: false,
      detail: '3 of 14 records are not published yet for records.example.',
    });

    // Every record published and looked up: done, with nothing left to link to.
    publish(first, domain.verificationRecord.value);
    const all = await dnsMappingOf(t.app, admin, domain.id);
    expect(all.records.map((r) => [r.purpose, r.status]).filter(([, status]) => status !== 'ok')).toEqual([]);
    expect(stepOf(await setupOf(t, admin), 'mail_records')).toEqual({
      step: 'mail_records',
      done: true,
      detail: 'Every record is in place for records.example.',
      domainId: null,
    });

    // A look-up that fails says nothing about what is published: the last conclusive one stands.
    dns.failWithServfail('records.example');
    await dnsMappingOf(t.app, admin, domain.id);
    expect(stepOf(await setupOf(t, admin), 'mail_records').done).toBe(true);
  });

  it('judges every verified domain: one with records missing keeps the step open', async () => {
    const org = await createOrganizationWithAdmin(t.db, { siteName: 'twodomains' });
    const admin = await signInAs(t.db, org.admin);
    const ready = await addVerifiedDomain(t.app, admin, dns, 'ready-two.example');
    const mapping = await dnsMappingOf(t.app, admin, ready.id);
    publish(mapping, ready.verificationRecord.value);
    await dnsMappingOf(t.app, admin, ready.id);
    const other = await addVerifiedDomain(t.app, admin, dns, 'other-two.example');
    await dnsMappingOf(t.app, admin, other.id);
    expect(stepOf(await setupOf(t, admin), 'mail_records')).toEqual({
      step: 'mail_records',
      done: false,
      detail: '14 of 14 records are not published yet for other-two.example.',
      domainId: other.id,
    });
  });

  it('asks for a new look-up once a DKIM rotation publishes a new key', async () => {
    const org = await createOrganizationWithAdmin(t.db, { siteName: 'rotating' });
    const admin = await signInAs(t.db, org.admin);
    const domain = await addVerifiedDomain(t.app, admin, dns, 'rotating.example');
    publish(await dnsMappingOf(t.app, admin, domain.id), domain.verificationRecord.value);
    expect((await dnsMappingOf(t.app, admin, domain.id)).records).toHaveLength(14);
    expect(stepOf(await setupOf(t, admin), 'mail_records').done).toBe(true);

    const next = await t.app.inject({
      method: 'POST',
      url: `/api/mail/domains/${domain.id}/dkim/next`,
      headers: admin.headers,
    });
    expect(next.statusCode, next.body).toBe(200);
    // Fifteen records now, the new key's not published: the stored 14 of 14 no longer counts.
    expect(stepOf(await setupOf(t, admin), 'mail_records')).toMatchObject({
      done: false,
      detail: 'The records of rotating.example have not been checked yet.',
    });
    expect((await dnsMappingOf(t.app, admin, domain.id)).records).toHaveLength(15);
    expect(stepOf(await setupOf(t, admin), 'mail_records').detail).toBe(
      '1 of 15 records is not published yet for rotating.example.',
    );
  });

  it('says mail is flowing only once another server’s message arrives on port 25, and keeps it', async () => {
    const m = world.server;
    const admin = await signInAs(m.db, world.org.admin);
    const [mia, noel] = [await world.user(), await world.user()];
    const miaLaptop = await createAppPassword(m, mia, 'Laptop');
    const noelPhone = await createAppPassword(m, noel, 'Phone');
    expect(stepOf(await setupOf(m, admin), 'mail_flowing')).toEqual({
      step: 'mail_flowing',
      done: false,
      detail:
        'No message has arrived yet. Once your records are published, send one to your address from another provider.',
      domainId: null,
    });

    // A colleague's message through submission lands in Noel's mailbox (Dovecot reports it):
    // delivery works, but nothing has come from outside yet.
    await sendMail(
      world,
      { from: mia.email, to: noel.email, subject: 'From a colleague', text: 'Lunch?' },
      { user: mia.email, pass: miaLaptop.password },
    );
    // A stranger's message to an address nobody holds is refused at RCPT.
    const refused = await sendMail(world, {
      from: 'grace@example.net',
      to: `nobody@${world.domain}`,
      subject: 'Who?',
      text: 'x',
    }).then(
      () => null,
      (error: { responseCode?: number }) => error.responseCode,
    );
    expect(refused, world.mail.logs()).toBe(550);
    await world.mail.drainQueue();
    const noelsInbox = async () => {
      const imap = await imapSignIn(world, { user: noel.email, pass: noelPhone.password });
      try {
        return await inboxSubjects(imap);
      } finally {
        await imap.logout();
      }
    };
    expect(await noelsInbox(), world.mail.logs()).toEqual(['From a colleague']);
    await expect.poll(() => messagesIn(noel.email)).toBe(1);
    expect(stepOf(await setupOf(m, admin), 'mail_flowing').done).toBe(false);

    // Another server hands Postfix a message on port 25: mail is flowing.
    await sendMail(world, {
      from: 'grace@example.net',
      to: noel.email,
      subject: 'From outside',
      text: 'Hello from another provider.',
    });
    await world.mail.drainQueue();
    expect(await noelsInbox(), world.mail.logs()).toEqual(['From a colleague', 'From outside']);
    expect(stepOf(await setupOf(m, admin), 'mail_flowing')).toEqual({
      step: 'mail_flowing',
      done: true,
      detail: 'Your first message has arrived.',
      domainId: null,
    });
    const first = await firstReceivedOf(m, world.org.id);
    expect(first).toBeInstanceOf(Date);

    // Later messages from outside leave the first time as it was.
    await sendMail(world, { from: 'grace@example.net', to: mia.email, subject: 'Again', text: 'x' });
    await world.mail.drainQueue();
    expect(await firstReceivedOf(m, world.org.id)).toEqual(first);
  });

  it('answers Postfix DUNNO whatever happens, and counts no recipient of a domain that is not verified', async () => {
    const org = await createOrganizationWithAdmin(t.db, { siteName: 'unverified' });
    await addDomain(t.db, org.id, 'unverified-mail.example', 'pending');
    const inbound = inboundMailTable(t.db, t.app.log);
    expect(await inbound('noel@unverified-mail.example')).toBe('DUNNO');
    expect(await firstReceivedOf(t, org.id)).toBeNull();
    // Not an address (Postfix asks the domain or `user@` only after a miss): not found.
    expect(await inbound('unverified-mail.example')).toBeNull();
    // The database away: still DUNNO, never TEMP, which would make Postfix defer the message.
    const broken = inboundMailTable({} as Db, t.app.log);
    expect(await broken('noel@unverified-mail.example')).toBe('DUNNO');
  });

  it('has no mail steps when mail is not set up on the server', async () => {
    const org = await createOrganizationWithAdmin(withoutMail.db, { siteName: 'nomail' });
    const admin = await signInAs(withoutMail.db, org.admin);
    await addVerifiedDomain(withoutMail.app, admin, dns, 'nomail.example');
    expect((await setupOf(withoutMail, admin)).mailSteps).toEqual([]);
  });
});
