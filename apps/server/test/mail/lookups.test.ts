import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeNetstring, NetstringReader } from '../../src/modules/mail/netstring.ts';
import { POSTFIX_MAPS } from '../../src/modules/mail/postfix-maps.ts';
import { createOrganizationWithAdmin, createUser, signInAs } from '../support/fixtures.ts';
import { freePort } from '../support/server-process.ts';
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
    expect(await aliases(ivy!.email)).toBe('NOTFOUND ');
    expect(await aliases(at('HELLO'))).toBe(`OK ${ann!.email}`);
    // Active and suspended members (whose mailboxes keep their mail); invited ones have none.
    expect(await aliases(at('team'))).toBe(`OK ${bob!.email},${sue!.email}`);
    expect(await aliases('@aliases-lookups.example.com')).toBe('NOTFOUND ');
    expect(await aliases(at('nobody'))).toBe('NOTFOUND ');
    // Postfix asks a socketmap the full address only: the catch-all answers an address nobody
    // holds; held addresses keep their answers (an invited user's stays not found).
    await call('PUT', `/api/mail/catch-alls/${domain.id}`, { type: 'user', id: bob!.id });
    expect(await aliases('@aliases-lookups.example.com')).toBe(`OK ${bob!.email}`);
    expect(await aliases(at('nobody'))).toBe(`OK ${bob!.email}`);
    expect(await aliases(ann!.email)).toBe(`OK ${ann!.email}`);
    expect(await aliases(at('hello'))).toBe(`OK ${ann!.email}`);
    expect(await aliases(ivy!.email)).toBe('NOTFOUND ');
    await call('PUT', `/api/mail/catch-alls/${domain.id}`, { type: 'group', id: group.id });
    expect(await aliases(at('nobody'))).toBe(`OK ${bob!.email},${sue!.email}`);

    // Removing a member takes effect on the next lookup.
    await call('DELETE', `/api/groups/${group.id}/members/${sue!.id}`);
    expect(await aliases(at('team'))).toBe(`OK ${bob!.email}`);

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

  it('answers Dovecot’s userdb: home parts and the plan’s quota; suspended users only for delivery', async () => {
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
    expect(await ask(`Lshared/userdb/lmtp/nobody@dict.example.com\tx`)).toBe('N');
    expect(await ask('Ishared/userdb/\t0')).toMatch(/^F/);
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
