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
