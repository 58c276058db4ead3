import { execFileSync } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { chmodSync, chownSync } from 'node:fs';
import path from 'node:path';
import type { DkimStateResponse } from '@atrium/contracts/mail-dkim';
import type { MailDomainsResponse } from '@atrium/contracts/mail-settings';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDkimKey } from '../../src/modules/domains/dkim.ts';
import { queueDkimTables } from '../../src/modules/mail/dkim/dkim-tables.job.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { addDomain } from '../users/helpers.ts';
import { createMailWorld, imapSignIn, type MailWorld } from './mail-world.ts';

// DKIM signing through the real servers: a user submits at Postfix with an app password,
// OpenDKIM signs with the key Atrium wrote into its tables, LMTP delivers, imapflow reads the
// message, and mailauth verifies the signature against the record Mail Settings tells the admin
// to publish, looked up on a loopback DNS server.

let world: MailWorld;
let dns: TestDnsServer;
let admin: TestSession;
let n = 0;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  world = await createMailWorld({ env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '500' } });
  admin = await signInAs(world.server.db, world.org.admin);
  // The world's domain row was made without a real key; give it one as adding a domain does.
  await setRealKey(world.domain);
  await signerReadsTables();
}, 60_000);

afterAll(async () => {
  await world?.close();
  await dns?.close();
});

async function setRealKey(domain: string) {
  const key = await generateDkimKey(world.server.config.secret);
  await world.server.db
    .updateTable('domains')
    .set({ dkim_private_key_enc: key.privateKeyEnc, dkim_public_key: key.publicKey })
    .where('name', '=', domain)
    .execute();
  await queueDkimTables(world.server.db, world.server.config);
}

/** Atrium's job writes the tables; the reload is the operator's (systemctl reload opendkim). */
async function signerReadsTables() {
  await world.server.app.jobs.drain();
  await world.mail.reloadDkim();
}

/**
 * The next messages are signed with `selector` and verify. OpenDKIM reloads its tables on a
 * thread of its own and says so only to syslog, so on a loaded machine the first message after a
 * reload may still be signed with the key before: submit again until the new one is used.
 */
async function expectSignedWith(selector: string) {
  await expect
    .poll(async () => verifySignatures(await submitAndRead()), { timeout: 30_000, interval: 500 })
    .toEqual([{ domain: world.domain, selector, result: 'pass' }]);
}

/** Publishes on the loopback DNS server exactly the DKIM records Mail Settings lists. */
async function publishDkimRecords(session = admin) {
  const response = await world.server.app.inject({ url: '/api/mail/domains', headers: session.headers });
  expect(response.statusCode, response.body).toBe(200);
  const records = response
    .json<MailDomainsResponse>()
    .domains.flatMap((d) => d.records.filter((r) => r.purpose === 'dkim'));
  for (const record of records) dns.set(record.host, { TXT: [record.value] });
  return records.map((r) => r.host).sort();
}

async function verifySignatures(source: Buffer) {
  const resolver = new Resolver();
  resolver.setServers([dns.address]);
  const result = await dkimVerify(source, {
    resolver: (name: string, type: string) => resolver.resolve(name, type) as Promise<string[][]>,
  });
  return result.results.map((r) => ({
    domain: r.signingDomain,
    selector: r.selector,
    result: r.status.result,
  }));
}

async function appPassword(user: { id: string; email: string; organizationId: string }) {
  const session = await signInAs(world.server.db, user);
  const created = await world.server.app.inject({
    method: 'POST',
    url: '/api/profile/app-passwords',
    headers: session.headers,
    payload: { name: `Client ${++n}` },
  });
  expect(created.statusCode, created.body).toBe(201);
  return created.json<{ password: string }>().password;
}

/** Submits as a new user (app password) to a mailbox of the world, and reads the delivered message. */
async function submitAndRead(headerFrom?: string): Promise<Buffer> {
  const recipient = await world.user();
  const recipientPassword = await appPassword(recipient);
  const subject = await submit(recipient.email, headerFrom);
  await world.mail.drainQueue();
  const imap = await imapSignIn(world, { user: recipient.email, pass: recipientPassword });
  try {
    const lock = await imap.getMailboxLock('INBOX');
    try {
      for await (const message of imap.fetch('1:*', { envelope: true, source: true })) {
        if (message.envelope?.subject === subject && message.source) return message.source;
      }
    } finally {
      lock.release();
    }
  } finally {
    await imap.logout();
  }
  throw new Error(`"${subject}" was not delivered\n${world.mail.logs()}`);
}

/** Submits as a new user of the world to `to`; returns the subject. */
async function submit(to: string, headerFrom?: string): Promise<string> {
  const sender = await world.user();
  const senderPassword = await appPassword(sender);
  const subject = `Signed ${++n}`;
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: world.mail.ports.submission,
    secure: false,
    ignoreTLS: true,
    auth: { user: sender.email, pass: senderPassword },
  });
  try {
    await transport.sendMail({
      from: headerFrom ?? sender.email,
      to,
      envelope: { from: sender.email, to },
      subject,
      text: 'Hello, signed.\n',
    });
  } finally {
    transport.close();
  }
  return subject;
}

const domainId = async () =>
  (await world.server.db
    .selectFrom('domains')
    .select('id')
    .where('name', '=', world.domain)
    .executeTakeFirstOrThrow())!.id;

const rotate = async (method: 'POST' | 'DELETE', step: string, session = admin, id?: string) =>
  world.server.app.inject({
    method,
    url: `/api/mail/domains/${id ?? (await domainId())}/dkim/${step}`,
    headers: session.headers,
  });

describe('DKIM signing of submitted mail (OpenDKIM, keys from Atrium)', () => {
  it('a message submitted by a user leaves signed, and the signature verifies against the published key', async () => {
    expect(await publishDkimRecords()).toEqual([`atrium._domainkey.${world.domain}`]);
    const source = await submitAndRead();
    expect(await verifySignatures(source), world.mail.logs()).toEqual([
      { domain: world.domain, selector: 'atrium', result: 'pass' },
    ]);
  });

  it('signs with the domain of the envelope sender, never another organisation’s written in From:', async () => {
    const other = await createOrganizationWithAdmin(world.server.db);
    const otherDomain = `other-${world.domain}`;
    await addDomain(world.server.db, other.id, otherDomain);
    await setRealKey(otherDomain);
    await signerReadsTables();
    await publishDkimRecords(await signInAs(world.server.db, other.admin));
    const results = await verifySignatures(await submitAndRead(`The CEO <ceo@${otherDomain}>`));
    expect(results.map((r) => r.domain)).not.toContain(otherDomain);
    expect(results).toEqual([{ domain: world.domain, selector: 'atrium', result: 'pass' }]);
  });
});

describe('DKIM key rotation on Mail Settings', () => {
  it('publishes a new selector beside the old one, signs with it after the switch, and retires the old one', async () => {
    const created = await rotate('POST', 'next');
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json<DkimStateResponse>().dkim).toMatchObject({
      selector: 'atrium',
      next: { selector: 'atrium2' },
      previous: null,
    });
    // Both published; mail is still signed with the current key until the switch.
    expect(await publishDkimRecords()).toEqual([
      `atrium._domainkey.${world.domain}`,
      `atrium2._domainkey.${world.domain}`,
    ]);
    expect((await verifySignatures(await submitAndRead()))[0]).toMatchObject({ selector: 'atrium' });

    const switched = await rotate('POST', 'switch');
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json<DkimStateResponse>().dkim).toMatchObject({
      selector: 'atrium2',
      next: null,
      previous: { selector: 'atrium' },
    });
    await signerReadsTables();
    await expectSignedWith('atrium2');
    // The old key stays published until it is retired.
    expect(await publishDkimRecords()).toEqual([
      `atrium._domainkey.${world.domain}`,
      `atrium2._domainkey.${world.domain}`,
    ]);

    const retired = await rotate('DELETE', 'previous');
    expect(retired.statusCode, retired.body).toBe(200);
    expect(retired.json<DkimStateResponse>().dkim).toEqual({
      selector: 'atrium2',
      next: null,
      previous: null,
    });
    expect(await publishDkimRecords()).toEqual([`atrium2._domainkey.${world.domain}`]);

    const activity = await world.server.app.inject({
      url: '/api/activity?kind=domain',
      headers: admin.headers,
    });
    const actions = activity.json<{ items: Array<{ action: string }> }>().items.map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'domain.dkim_key_created',
        'domain.dkim_key_switched',
        'domain.dkim_key_retired',
      ]),
    );
  });

  it('refuses steps out of order, non-admins and other organisations’ domains', async () => {
    expect((await rotate('POST', 'switch')).json()).toMatchObject({ error: { code: 'dkim_no_next_key' } });
    expect((await rotate('DELETE', 'previous')).statusCode).toBe(409);
    expect((await rotate('POST', 'next')).statusCode).toBe(200);
    expect((await rotate('POST', 'next')).json()).toMatchObject({
      error: { code: 'dkim_rotation_in_progress' },
    });
    const discarded = await rotate('DELETE', 'next');
    expect(discarded.json<DkimStateResponse>().dkim).toEqual({
      selector: 'atrium2',
      next: null,
      previous: null,
    });

    const member = await signInAs(world.server.db, await createUser(world.server.db, world.org.id));
    expect((await rotate('POST', 'next', member)).statusCode).toBe(403);
    const stranger = await signInAs(
      world.server.db,
      (await createOrganizationWithAdmin(world.server.db)).admin,
    );
    expect((await rotate('POST', 'next', stranger)).statusCode).toBe(404);
  });
});

describe('OpenDKIM’s RequireSafeKeys (on, as on a mail host)', () => {
  const keyFile = () => path.join(world.mail.opendkimDir, 'keys', `atrium2._domainkey.${world.domain}.pem`);
  const nobody = () => Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }));
  const opendkimGid = () => Number(execFileSync('id', ['-g', 'opendkim'], { encoding: 'utf8' }));

  // Each change leaves the key readable by OpenDKIM's user, so only the safety check refuses it;
  // submission then answers 4xx (milter_default_action = tempfail) rather than sending unsigned.
  it.each([
    ['a key file readable by others', () => chmodSync(keyFile(), 0o644)],
    [
      'a key file owned by another user',
      () => {
        chownSync(keyFile(), nobody(), opendkimGid());
        chmodSync(keyFile(), 0o640);
      },
    ],
    ['a key directory others may write', () => chmodSync(path.dirname(keyFile()), 0o777)],
  ])('refuses %s, and signs again once atrium-dkim-sync has put it right', async (_, spoil) => {
    const recipient = (await world.user()).email;
    spoil();
    await expect(submit(recipient)).rejects.toMatchObject({ responseCode: 451 });
    // The sync sees the wrong owner or mode, copies again and reloads.
    expect(await world.mail.reloadDkim()).toMatch(/reloaded opendkim/);
    await expectSignedWith('atrium2');
  });
});
