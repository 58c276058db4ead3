import type { Dashboard } from '@atrium/contracts/dashboard';
import type { DnsMapping } from '@atrium/contracts/domains';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quotaCloneCommit } from '../../src/modules/mail/lookups/dovecot-quota-clone.ts';
import { insertSetupRecord } from '../../src/modules/setup/setup.repository.ts';
import { addVerifiedDomain, dnsMappingOf } from '../domains/domain-helpers.ts';
import { TestDnsServer, type ZoneRecords } from '../support/dns-server.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Issue 42 item 2: the checklist tells the truth about mail. "Publish your mail records" is done
// only when the last look-up found every record of every verified domain (DNS on loopback);
// "Mail is flowing" once a mailbox of the organisation reported its first message (quota_clone).

const MAIL_HOST = 'mail.atrium.test';
let t: TestApp;
let dns: TestDnsServer;
let withoutMail: TestApp;

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
});
afterAll(async () => {
  await t?.close();
  await withoutMail?.close();
  await dns?.close();
});

async function setupOf(app: TestApp, admin: TestSession): Promise<Dashboard['setup']> {
  const response = await app.app.inject({ url: '/api/dashboard', headers: admin.headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Dashboard>().setup;
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

    // The domain page looks the records up (nothing published): 11 of 11 missing.
    const first = await dnsMappingOf(t.app, admin, domain.id);
    expect(first.records).toHaveLength(11);
    expect(first.records.every((r) => r.status === 'missing')).toBe(true);
    expect(stepOf(await setupOf(t, admin), 'mail_records')).toMatchObject({
      done: false,
      detail: '11 of 11 records are not published yet for records.example.',
      domainId: domain.id,
    });

    // Three left out, then looked up again ("Check all records now"): 3 of 11.
    publish(first, domain.verificationRecord.value, ['dmarc', 'site', 'autodiscover']);
    const partial = await dnsMappingOf(t.app, admin, domain.id);
    expect(partial.records.filter((r) => r.status === 'ok')).toHaveLength(8);
    const open = await setupOf(t, admin);
    expect(stepOf(open, 'mail_records')).toMatchObject({
      done: false,
      detail: '3 of 11 records are not published yet for records.example.',
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
      detail: '11 of 11 records are not published yet for other-two.example.',
      domainId: other.id,
    });
  });

  it('asks for a new look-up once a DKIM rotation publishes a new key', async () => {
    const org = await createOrganizationWithAdmin(t.db, { siteName: 'rotating' });
    const admin = await signInAs(t.db, org.admin);
    const domain = await addVerifiedDomain(t.app, admin, dns, 'rotating.example');
    publish(await dnsMappingOf(t.app, admin, domain.id), domain.verificationRecord.value);
    expect((await dnsMappingOf(t.app, admin, domain.id)).records).toHaveLength(11);
    expect(stepOf(await setupOf(t, admin), 'mail_records').done).toBe(true);

    const next = await t.app.inject({
      method: 'POST',
      url: `/api/mail/domains/${domain.id}/dkim/next`,
      headers: admin.headers,
    });
    expect(next.statusCode, next.body).toBe(200);
    // Twelve records now, the new key's not published: the stored 11 of 11 no longer counts.
    expect(stepOf(await setupOf(t, admin), 'mail_records')).toMatchObject({
      done: false,
      detail: 'The records of rotating.example have not been checked yet.',
    });
    expect((await dnsMappingOf(t.app, admin, domain.id)).records).toHaveLength(12);
    expect(stepOf(await setupOf(t, admin), 'mail_records').detail).toBe(
      '1 of 12 records is not published yet for rotating.example.',
    );
  });

  it('says mail is flowing once a mailbox of the organisation reports its first message, and keeps it', async () => {
    const org = await createOrganizationWithAdmin(t.db, { siteName: 'flowing' });
    const admin = await signInAs(t.db, org.admin);
    await addVerifiedDomain(t.app, admin, dns, 'flowing.example');
    const user = await createUser(t.db, org.id, { email: 'mia@flowing.example' });
    const commit = quotaCloneCommit(t.db);
    expect(stepOf(await setupOf(t, admin), 'mail_flowing')).toMatchObject({ done: false });

    // An empty mailbox's usage (Dovecot opened it) is no message.
    const usage = (messages: string) =>
      commit(
        user.email,
        new Map([
          ['priv/quota/storage', '0'],
          ['priv/quota/messages', messages],
        ]),
      );
    expect(await usage('0')).toEqual({ ok: true });
    expect(stepOf(await setupOf(t, admin), 'mail_flowing')).toMatchObject({ done: false });

    expect(await usage('1')).toEqual({ ok: true });
    expect(stepOf(await setupOf(t, admin), 'mail_flowing')).toEqual({
      step: 'mail_flowing',
      done: true,
      detail: 'Your first message has arrived.',
      domainId: null,
    });
    const { mail_first_received_at: first } = await t.db
      .selectFrom('organizations')
      .select('mail_first_received_at')
      .where('id', '=', org.id)
      .executeTakeFirstOrThrow();

    // The message deleted: mail has still flowed, and the first time stays.
    expect(await usage('0')).toEqual({ ok: true });
    expect(await usage('4')).toEqual({ ok: true });
    expect(stepOf(await setupOf(t, admin), 'mail_flowing').done).toBe(true);
    const again = await t.db
      .selectFrom('organizations')
      .select('mail_first_received_at')
      .where('id', '=', org.id)
      .executeTakeFirstOrThrow();
    expect(again.mail_first_received_at).toEqual(first);
  });

  it('counts no message in a mailbox on a domain that is not verified', async () => {
    const org = await createOrganizationWithAdmin(t.db, { siteName: 'unverified' });
    const user = await createUser(t.db, org.id, { email: 'noel@unverified-mail.example' });
    expect(await quotaCloneCommit(t.db)(user.email, new Map([['priv/quota/messages', '2']]))).toEqual({
      ok: true,
    });
    const row = await t.db
      .selectFrom('organizations')
      .select('mail_first_received_at')
      .where('id', '=', org.id)
      .executeTakeFirstOrThrow();
    expect(row.mail_first_received_at).toBeNull();
  });

  it('has no mail steps when mail is not set up on the server', async () => {
    const org = await createOrganizationWithAdmin(withoutMail.db, { siteName: 'nomail' });
    const admin = await signInAs(withoutMail.db, org.admin);
    await addVerifiedDomain(withoutMail.app, admin, dns, 'nomail.example');
    expect((await setupOf(withoutMail, admin)).mailSteps).toEqual([]);
  });
});
