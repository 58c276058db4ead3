import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSaslRelay } from '../../src/supervisor/sasl-relay.ts';
import { accepts, readLog, uidOf } from '../support/daemons.ts';
import { freePort } from '../support/free-port.ts';
import { POSTFIX_INTERNAL_SERVICES } from '../../src/modules/mail/config/postfix-config.ts';

// Debian's Postfix signing users in through the relay, in front of a fake Dovecot auth listener:
// what a mail client is told when Dovecot says OK, FAIL, or FAIL with code=temp_fail (Atrium away).

const POSTFIX = '/usr/sbin/postfix';
type Answer = 'ok' | 'fail' | 'temp_fail';

/** Dovecot's auth protocol, server side, answering every AUTH with `answer()`. */
function fakeDovecotAuth(answer: () => Answer) {
  const sockets = new Set<Socket>();
  let connections = 0;
  let lastAsked: Socket | undefined;
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.write(
      'VERSION\t1\t2\nMECH\tPLAIN\tplaintext\nMECH\tLOGIN\tplaintext\n' +
        `SPID\t${process.pid}\nCUID\t${connections}\nCOOKIE\t${'0'.repeat(32)}\nDONE\n`,
    );
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const [command, id] = line.split('\t');
        if (command !== 'AUTH') continue;
        lastAsked = socket;
        const reply = answer();
        if (reply === 'ok') socket.write(`OK\t${id}\tuser=ann@example.com\n`);
        else if (reply === 'fail') socket.write(`FAIL\t${id}\tuser=ann@example.com\n`);
        else {
          // Split mid-line: the relay must still recognise it before sending any of it on.
          const line = `FAIL\t${id}\tcode=temp_fail\tuser=ann@example.com\n`;
          socket.write(line.slice(0, 6));
          setTimeout(() => socket.write(line.slice(6)), 50);
        }
      }
    });
  });
  /** Dovecot gone: its listener closed and every connection to it dropped. */
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    if (server.listening) await closeServer(server);
  };
  return { server, stop, lastAsked: () => lastAsked };
}

/** An SMTP client on a raw socket: each command resolves with the whole (multi-line) reply. */
async function smtp(port: number) {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let buffered = '';
  let wake: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    wake?.();
  });
  socket.on('close', () => wake?.());
  const reply = async (): Promise<string> => {
    for (;;) {
      // A reply ends with a line whose code is followed by a space (RFC 5321 4.2.1).
      const end = /^\d{3}(?: .*)?\r\n/m.exec(buffered);
      if (end) {
        const text = buffered.slice(0, end.index + end[0].length);
        buffered = buffered.slice(text.length);
        return text;
      }
      if (socket.destroyed) return buffered;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  const send = (line: string) => {
    socket.write(`${line}\r\n`);
    return reply();
  };
  return { reply, send, close: () => socket.destroy() };
}

const AUTH_PLAIN = `AUTH PLAIN ${Buffer.from('\0ann@example.com\0secret').toString('base64')}`;

/** A new SMTP connection, greeted and past EHLO, offering AUTH PLAIN. */
async function ehlo(port: number) {
  const client = await smtp(port);
  expect(await client.reply()).toMatch(/^220 /);
  expect(await client.send('EHLO client.test')).toMatch(/^250-AUTH .*PLAIN/m);
  return client;
}

/** EHLO then AUTH PLAIN on a new SMTP connection; the reply to AUTH. */
async function signIn(port: number): Promise<string> {
  const client = await ehlo(port);
  try {
    return await client.send(AUTH_PLAIN);
  } finally {
    client.close();
  }
}

const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
const listen = (server: Server, port: number) =>
  new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));

describe('the SASL relay between Postfix and Dovecot’s auth listener', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-sasl-relay-'));
  const warnings: string[] = [];
  const log = { warn: (message: string) => warnings.push(message) };
  let answer: Answer = 'ok';
  const dovecot = fakeDovecotAuth(() => answer);
  const relays: Server[] = [];
  let postfixRunning = false;
  /** smtpd in front of the relay to the fake Dovecot, and one in front of a relay to nothing. */
  const ports = { smtp: 0, smtpNoAuth: 0, relay: 0, relayNoAuth: 0, auth: 0, nothing: 0 };

  beforeAll(async () => {
    if (!existsSync(POSTFIX) || userInfo().uid !== 0) {
      throw new Error('The SASL relay test runs Debian’s Postfix as root (apt-get install postfix)');
    }
    for (const name of Object.keys(ports) as Array<keyof typeof ports>) ports[name] = await freePort();
    await listen(dovecot.server, ports.auth);
    for (const [port, upstream] of [
      [ports.relay, ports.auth],
      [ports.relayNoAuth, ports.nothing],
    ]) {
      const relay = createSaslRelay({ host: '127.0.0.1', port: upstream! }, log);
      relays.push(relay);
      await listen(relay, port!);
    }

    chmodSync(dir, 0o755);
    const config = path.join(dir, 'postfix');
    const queue = path.join(dir, 'queue');
    const data = path.join(dir, 'data');
    for (const sub of [config, queue, data]) mkdirSync(sub, { mode: 0o755 });
    const postfix = uidOf('postfix');
    chownSync(data, postfix.uid, postfix.gid);
    writeFileSync(
      path.join(config, 'main.cf'),
      [
        'compatibility_level = 3.6',
        `queue_directory = ${queue}`,
        `data_directory = ${data}`,
        'inet_interfaces = 127.0.0.1',
        'inet_protocols = ipv4',
        `maillog_file = ${path.join(dir, 'postfix.log')}`,
        `maillog_file_prefixes = ${dir}`,
        'myhostname = test.local',
        'smtpd_sasl_auth_enable = yes',
        'smtpd_sasl_type = dovecot',
        `smtpd_sasl_path = inet:127.0.0.1:${ports.relay}`,
        'smtpd_tls_security_level = none',
        'smtpd_tls_auth_only = no',
        'smtpd_peername_lookup = no',
        'alias_maps =',
      ].join('\n') + '\n',
    );
    writeFileSync(
      path.join(config, 'master.cf'),
      [
        `127.0.0.1:${ports.smtp} inet n - n - - smtpd`,
        `127.0.0.1:${ports.smtpNoAuth} inet n - n - - smtpd`,
        `  -o smtpd_sasl_path=inet:127.0.0.1:${ports.relayNoAuth}`,
        ...POSTFIX_INTERNAL_SERVICES,
      ].join('\n') + '\n',
    );
    const setPermissions = spawnSync(POSTFIX, ['-c', config, 'set-permissions'], { encoding: 'utf8' });
    const started = spawnSync(POSTFIX, ['-c', config, 'start'], { encoding: 'utf8' });
    if (started.status !== 0) {
      throw new Error(
        `postfix did not start (${started.status}):\n${setPermissions.stderr}${started.stderr}${started.stdout}\n${postfixLog()}`,
      );
    }
    postfixRunning = true;
    const deadline = Date.now() + 20_000;
    while (!((await accepts(ports.smtp)) && (await accepts(ports.smtpNoAuth)))) {
      if (Date.now() > deadline) throw new Error(`postfix did not answer within 20 s:\n${postfixLog()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  afterAll(async () => {
    if (postfixRunning) {
      const config = path.join(dir, 'postfix');
      spawnSync(POSTFIX, ['-c', config, 'stop'], { encoding: 'utf8' });
      // `stop` returns before the master daemon is gone; it is gone when `status` says so.
      const deadline = Date.now() + 10_000;
      while (spawnSync(POSTFIX, ['-c', config, 'status']).status === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await dovecot.stop();
    await Promise.all(relays.map(closeServer));
    rmSync(dir, { recursive: true, force: true });
  });

  const postfixLog = () => readLog(path.join(dir, 'postfix.log'));

  it('passes Dovecot’s OK through: the client is signed in (235)', async () => {
    answer = 'ok';
    expect(await signIn(ports.smtp), postfixLog()).toMatch(/^235 /);
  });

  it('passes a plain FAIL through: a wrong password is still refused as wrong (535)', async () => {
    answer = 'fail';
    expect(await signIn(ports.smtp), postfixLog()).toMatch(/^535 5\.7\.8 /);
  });

  it('turns FAIL with code=temp_fail into a lost connection: try again later (454), then signs in once Dovecot can check', async () => {
    answer = 'temp_fail';
    expect(await signIn(ports.smtp), postfixLog()).toMatch(/^454 4\.7\.0 /);
    expect(warnings.join(' ')).toContain('temp_fail');

    // The relay dropped the connection to Dovecot with Postfix's, so the next sign-in needs a new one.
    await expect.poll(() => dovecot.lastAsked()?.closed).toBe(true);
    answer = 'ok';
    expect(await signIn(ports.smtp), postfixLog()).toMatch(/^235 /);
  });

  it('drops Postfix’s connection when Dovecot’s auth listener has gone away: try again later (454)', async () => {
    // Signed-in-ready first, as a phone is: Postfix has Dovecot's mechanisms from its handshake.
    const client = await ehlo(ports.smtp);
    try {
      await dovecot.stop();
      expect(await client.send(AUTH_PLAIN), postfixLog()).toMatch(/^454 4\.7\.0 /);
    } finally {
      client.close();
    }
    expect(warnings).toContain('SASL relay: Dovecot auth unreachable (ECONNREFUSED)');
  });

  it('(Postfix itself) drops a client without a greeting when no smtpd process ever reached Dovecot', async () => {
    // Not the relay's doing: a fresh smtpd that gets no mechanism list exits at once, as it does
    // when nothing listens at smtpd_sasl_path at all, and master.cf's service is throttled.
    const client = await smtp(ports.smtpNoAuth);
    try {
      expect(await client.reply()).toBe('');
    } finally {
      client.close();
    }
    await expect.poll(postfixLog).toContain('fatal: no SASL authentication mechanisms');
  });

  it('drops both connections on a reply line longer than 64 KiB (not the auth protocol)', async () => {
    // Spoken to directly: Postfix would only report it as a lost connection.
    const upstream = createServer((socket) => socket.write('x'.repeat(70 * 1024)));
    const [upstreamPort, relayPort] = [await freePort(), await freePort()];
    await listen(upstream, upstreamPort);
    const relay = createSaslRelay({ host: '127.0.0.1', port: upstreamPort }, log);
    relays.push(relay);
    await listen(relay, relayPort);
    const client = connect(relayPort, '127.0.0.1');
    let received = 0;
    client.on('data', (chunk: Buffer) => (received += chunk.length));
    await new Promise((resolve) => client.once('close', resolve));
    await closeServer(upstream);
    expect(received).toBe(0);
    expect(warnings).toContain('SASL relay: overlong line from Dovecot auth');
  });

  it('never logs what goes through it (the client’s lines carry base64 passwords)', () => {
    const logged = JSON.stringify(warnings);
    expect(logged).not.toContain(Buffer.from('\0ann@example.com\0secret').toString('base64'));
    expect(logged).not.toContain('ann@example.com');
  });
});
