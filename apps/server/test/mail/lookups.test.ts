import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeNetstring, NetstringReader } from '../../src/modules/mail/protocols/netstring.ts';
import { POSTFIX_MAPS } from '../../src/modules/mail/lookups/postfix-maps.ts';
import { createOrganizationWithAdmin, createUser, signInAs } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain } from '../users/helpers.ts';

// The two lookup listeners spoken to as Postfix and Dovecot speak (the real daemons are in
// delivery.test.ts): every answer, hits and misses, and what a broken client gets.

/** A line- or netstring-speaking client on one connection: send, then read the next answer. */
function client(socket: Socket, framing: 'netstring' | 'line') {
  const reader = new NetstringReader();
  const answers: string[] = [];
  let pending = '';
  let wake: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    if (framing === 'netstring') answers.push(...reader.push(chunk));
    else {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop()!;
      answers.push(...lines);
    }
    wake?.();
  });
  return async (request: string): Promise<string> => {
    socket.write(framing === 'netstring' ? encodeNetstring(request) : `${request}\n`);
    while (answers.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return answers.shift()!;
  };
}

describe('the socketmap and dict listeners', () => {
  let server: TestApp;
  let socketmapPort: number;
  let dictSocket: string;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    socketmapPort = await freePort();
    dictSocket = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-dict-')), 'dict.sock');
    server = await createTestApp({
      env: { MAIL_SOCKETMAP_ADDRESS: `127.0.0.1:${socketmapPort}`, MAIL_DICT_SOCKET: dictSocket },
    });
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await server?.close();
  });

  const open = async (target: number | string) => {
    const socket = typeof target === 'number' ? connect(target, '127.0.0.1') : connect(target);
    sockets.push(socket);
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return socket;
  };

  it('answers Postfix: verified domains, active and suspended mailboxes, sender logins; misses are NOTFOUND', async () => {
    const org = await createOrganizationWithAdmin(server.db);
    await addDomain(server.db, org.id, 'mail-lookups.example.com');
    await addDomain(server.db, org.id, 'pending-lookups.example.com', 'pending');
    const active = await createUser(server.db, org.id, { email: 'ann@mail-lookups.example.com' });
    const suspended = await createUser(server.db, org.id, { email: 'sam@mail-lookups.example.com' });
    await server.db
      .updateTable('users')
      .set({ status: 'suspended' })
      .where('id', '=', suspended.id)
      .execute();
    const ask = client(await open(socketmapPort), 'netstring');

    expect(await ask(`${POSTFIX_MAPS.domains} mail-lookups.example.com`)).toBe('OK mail-lookups.example.com');
    expect(await ask(`${POSTFIX_MAPS.domains} pending-lookups.example.com`)).toBe('NOTFOUND ');
    expect(await ask(`${POSTFIX_MAPS.mailboxes} ${active.email}`)).toBe(`OK ${active.email}`);
    expect(await ask(`${POSTFIX_MAPS.mailboxes} ${suspended.email.toUpperCase()}`)).toBe(
      `OK ${suspended.email}`,
    );
    expect(await ask(`${POSTFIX_MAPS.mailboxes} nobody@mail-lookups.example.com`)).toBe('NOTFOUND ');
    expect(await ask(`${POSTFIX_MAPS.mailboxes} @mail-lookups.example.com`)).toBe('NOTFOUND ');
    expect(await ask(`${POSTFIX_MAPS.senderLogins} ${active.email}`)).toBe(`OK ${active.email}`);
    expect(await ask('no-such-map key')).toMatch(/^PERM /);

    await server.db.deleteFrom('users').where('id', '=', active.id).execute();
    expect(await ask(`${POSTFIX_MAPS.mailboxes} ${active.email}`)).toBe('NOTFOUND ');
  });

  it('answers Postfix’s alias map: mailboxes themselves, aliases, group members, catch-alls; senders', async () => {
    const org = await createOrganizationWithAdmin(server.db);
    await addDomain(server.db, org.id, 'aliases-lookups.example.com');
    await addDomain(server.db, org.id, 'pending-aliases.example.com', 'pending');
    const at = (local: string) => `${local}@aliases-lookups.example.com`;
    const [ann, bob, sue, ivy] = await Promise.all(
      ['ann', 'bob', 'sue', 'ivy'].map((n) => createUser(server.db, org.id, { email: at(n) })),
    );
    await server.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', sue!.id).execute();
    await server.db.updateTable('users').set({ status: 'invited' }).where('id', '=', ivy!.id).execute();
    const admin = await signInAs(server.db, org.admin);
    const call = async (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => {
      const response = await server.app.inject({
        method,
        url,
        headers: admin.headers,
        ...(payload ? { payload } : {}),
      });
      expect(response.statusCode, response.body).toBeLessThan(300);
      return response.json() as { id: string };
    };
    await call('POST', '/api/mail/aliases', {
      userId: ann!.id,
      localPart: 'hello',
      domain: 'aliases-lookups.example.com',
    });
    const group = await call('POST', '/api/groups', { name: 'Team' });
    await call('POST', `/api/groups/${group.id}/members`, { userIds: [bob!.id, sue!.id, ivy!.id] });
    await call('PUT', `/api/mail/group-addresses/${group.id}`, {
      localPart: 'team',
      domain: 'aliases-lookups.example.com',
    });
    const domain = await server.db
      .selectFrom('domains')
      .select('id')
      .where('name', '=', 'aliases-lookups.example.com')
      .executeTakeFirstOrThrow();
    const ask = client(await open(socketmapPort), 'netstring');
    const aliases = (key: string) => ask(`${POSTFIX_MAPS.aliases} ${key}`);

    // A mailbox answers itself, so a catch-all on its domain never takes its mail.
    expect(await aliases(ann!.email)).toBe(`OK ${ann!.email}`);
    expect(await aliases(sue!.email)).toBe(`OK ${sue!.email}`);
    // An invited user's mailbox exists from the start (issue 42 item 1): it keeps its mail.
    expect(await aliases(ivy!.email)).toBe(`OK ${ivy!.email}`);
    expect(await ask(`${POSTFIX_MAPS.mailboxes} ${ivy!.email}`)).toBe(`OK ${ivy!.email}`);
    // …but sends nothing before they sign in (submission needs a signed-in user anyway).
    expect(await ask(`${POSTFIX_MAPS.senderLogins} ${ivy!.email}`)).toBe('NOTFOUND ');
    expect(await aliases(at('HELLO'))).toBe(`OK ${ann!.email}`);
    // Every member with a mailbox: active, suspended and invited ones.
    expect(await aliases(at('team'))).toBe(`OK ${bob!.email},${ivy!.email},${sue!.email}`);
    expect(await aliases('@aliases-lookups.example.com')).toBe('NOTFOUND ');
    expect(await aliases(at('nobody'))).toBe('NOTFOUND ');
    // Postfix asks a socketmap the full address only: the catch-all answers an address nobody
    // holds; held addresses keep their answers (an invited user's too).
    await call('PUT', `/api/mail/catch-alls/${domain.id}`, { type: 'user', id: bob!.id });
    expect(await aliases('@aliases-lookups.example.com')).toBe(`OK ${bob!.email}`);
    expect(await aliases(at('nobody'))).toBe(`OK ${bob!.email}`);
    expect(await aliases(ann!.email)).toBe(`OK ${ann!.email}`);
    expect(await aliases(at('hello'))).toBe(`OK ${ann!.email}`);
    expect(await aliases(ivy!.email)).toBe(`OK ${ivy!.email}`);
    await call('PUT', `/api/mail/catch-alls/${domain.id}`, { type: 'group', id: group.id });
    expect(await aliases(at('nobody'))).toBe(`OK ${bob!.email},${ivy!.email},${sue!.email}`);

    // Removing a member takes effect on the next lookup.
    await call('DELETE', `/api/groups/${group.id}/members/${sue!.id}`);
    expect(await aliases(at('team'))).toBe(`OK ${bob!.email},${ivy!.email}`);

    // Senders: a user sends as their aliases; nobody sends as a group address or a whole domain.
    expect(await ask(`${POSTFIX_MAPS.senderLogins} ${at('hello')}`)).toBe(`OK ${ann!.email}`);
    expect(await ask(`${POSTFIX_MAPS.senderLogins} ${ann!.email}`)).toBe(`OK ${ann!.email}`);
    expect(await ask(`${POSTFIX_MAPS.senderLogins} ${at('team')}`)).toBe('NOTFOUND ');
    expect(await ask(`${POSTFIX_MAPS.senderLogins} @aliases-lookups.example.com`)).toBe('NOTFOUND ');

    // An alias counts only while its domain is verified.
    await server.db.updateTable('domains').set({ state: 'failed' }).where('id', '=', domain.id).execute();
    expect(await aliases(at('hello'))).toBe('NOTFOUND ');
    expect(await aliases(at('nobody'))).toBe('NOTFOUND ');
    expect(await aliases(ann!.email)).toBe(`OK ${ann!.email}`);
  });

  it('closes a connection that does not speak netstrings', async () => {
    const socket = await open(socketmapPort);
    socket.write('GET something\n');
    await new Promise((resolve) => socket.once('close', resolve));
  });

  it('answers Dovecot’s userdb: home parts and the plan’s quota; suspended and invited users only for delivery and its quota check', async () => {
    const org = await createOrganizationWithAdmin(server.db);
    const user = await createUser(server.db, org.id, { email: 'dora@dict.example.com' });
    const ask = client(await open(dictSocket), 'line');
    // HELLO gets no answer; the lookup after it does.
    const reply = await ask(`H3\t2\t0\t\tatrium\nLshared/userdb/imap/${user.email}\t${user.email}`);
    expect(reply[0]).toBe('O');
    expect(JSON.parse(reply.slice(1))).toEqual({
      organization: org.id,
      mailbox: user.id,
      quota_rule: '*:storage=102400M',
    });
    await server.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', user.id).execute();
    expect(await ask(`Lshared/userdb/imap/${user.email}\t${user.email}`)).toBe('N');
    expect((await ask(`Lshared/userdb/lmtp/${user.email}\t${user.email}`))[0]).toBe('O');
    // quota-status (Postfix's question at RCPT) sees the mailbox a delivery would fill.
    expect((await ask(`Lshared/userdb/quota-status/${user.email}\t${user.email}`))[0]).toBe('O');
    // An invited user's mailbox takes deliveries from the start; nothing opens it before they
    // have set a password (issue 42 item 1).
    await server.db.updateTable('users').set({ status: 'invited' }).where('id', '=', user.id).execute();
    expect(await ask(`Lshared/userdb/imap/${user.email}\t${user.email}`)).toBe('N');
    expect(await ask(`Lshared/userdb/submission/${user.email}\t${user.email}`)).toBe('N');
    expect((await ask(`Lshared/userdb/lmtp/${user.email}\t${user.email}`))[0]).toBe('O');
    expect((await ask(`Lshared/userdb/quota-status/${user.email}\t${user.email}`))[0]).toBe('O');
    expect(await ask(`Lshared/userdb/lmtp/nobody@dict.example.com\tx`)).toBe('N');
    expect(await ask('Ishared/userdb/\t0')).toMatch(/^F/);
  });

  it('stores quota_clone’s usage written as Dovecot writes it, for mailboxes only; a broken line closes the connection', async () => {
    const org = await createOrganizationWithAdmin(server.db);
    const user = await createUser(server.db, org.id, { email: 'quota@dict-usage.example.com' });
    const invited = await createUser(server.db, org.id, { email: 'invited@dict-usage.example.com' });
    await server.db.updateTable('users').set({ status: 'invited' }).where('id', '=', invited.id).execute();
    const admin = await signInAs(server.db, org.admin);
    const usageOf = async (email: string) => {
      const response = await server.app.inject({ url: '/api/mail/mailboxes', headers: admin.headers });
      expect(response.statusCode, response.body).toBe(200);
      return (
        response.json() as {
          mailboxes: Array<{ email: string; usedBytes: number | null; messages: number | null }>;
        }
      ).mailboxes.find((m) => m.email === email);
    };
    const socket = await open(dictSocket);
    const ask = client(socket, 'line');
    // Exactly Dovecot 2.3.19's lines (captured from delivery.test.ts): no reply until the commit.
    expect(
      await ask(
        `H3\t2\t0\t\tatrium\nB1\t${user.email}\nS1\tpriv/quota/storage\t4019\nS1\tpriv/quota/messages\t2\nC1`,
      ),
    ).toBe('O1');
    expect(await usageOf(user.email)).toMatchObject({ usedBytes: 4019, messages: 2 });
    // Another commit on the same connection replaces the values (an address in another case too).
    expect(
      await ask(
        `B2\t${user.email.toUpperCase()}\nS2\tpriv/quota/storage\t9000\nS2\tpriv/quota/messages\t3\nC2`,
      ),
    ).toBe('O2');
    expect(await usageOf(user.email)).toMatchObject({ usedBytes: 9000, messages: 3 });
    // Lookups and commits are answered in the order asked.
    expect(await ask(`Lshared/userdb/lmtp/${user.email}\t${user.email}`)).toMatch(/^O/);

    // Refused, with the connection kept: other keys, values that are not counts, addresses
    // without a mailbox (nobody), increments and unsets. An invited user's mailbox counts.
    expect(await ask(`B3\t${user.email}\nS3\tpriv/sieve/x\t1\nC3`)).toMatch(/^F3\t/);
    expect(await ask(`B4\t${user.email}\nS4\tpriv/quota/storage\t-5\nC4`)).toMatch(/^F4\t/);
    expect(await ask(`B5\t${invited.email}\nS5\tpriv/quota/storage\t1\nC5`)).toBe('O5');
    expect(await ask(`B6\tnobody@dict-usage.example.com\nS6\tpriv/quota/storage\t1\nC6`)).toBe(
      'F6\tno such mailbox',
    );
    expect(await ask(`B7\t${user.email}\nA7\tpriv/quota/storage\t5\nC7`)).toMatch(/^F7\t/);
    // A rolled-back transaction writes nothing; its id is free again.
    expect(await ask(`B8\t${user.email}\nS8\tpriv/quota/storage\t1\nR8\nB8\t${user.email}\nC8`)).toBe('O8');
    expect(await usageOf(user.email)).toMatchObject({ usedBytes: 9000, messages: 3 });
    expect(await usageOf(invited.email)).toMatchObject({ usedBytes: 1 });

    // A line for a transaction never begun is a broken client: the connection closes, as
    // Dovecot's own dict server does, and the listener goes on serving.
    socket.write('S99\tpriv/quota/storage\t1\n');
    await new Promise((resolve) => socket.once('close', resolve));
    const unknown = await open(dictSocket);
    unknown.write('Zwhat\n');
    await new Promise((resolve) => unknown.once('close', resolve));
    const again = client(await open(dictSocket), 'line');
    expect(await again(`B1\t${user.email}\nS1\tpriv/quota/messages\t4\nC1`)).toBe('O1');
    expect(await usageOf(user.email)).toMatchObject({ usedBytes: 9000, messages: 4 });

    // The mail plan card's total is the sum of the organisation's mailboxes.
    expect(await again(`B2\t${user.email}\nS2\tpriv/quota/storage\t${5 * 1024 * 1024}\nC2`)).toBe('O2');
    const plan = await server.app.inject({ url: '/api/subscription/mail-plan', headers: admin.headers });
    expect(plan.json()).toMatchObject({ mailConfigured: true, usage: { usedMb: 5 } });
  });

  it('tells the mail plan that mail is set up on this deployment', async () => {
    const org = await createOrganizationWithAdmin(server.db);
    const admin = await signInAs(server.db, org.admin);
    const plan = await server.app.inject({
      method: 'GET',
      url: '/api/subscription/mail-plan',
      headers: admin.headers,
    });
    expect(plan.statusCode, plan.body).toBe(200);
    expect(plan.json()).toMatchObject({ mailConfigured: true, quotaPerMailboxMb: 102400 });
  });
});
