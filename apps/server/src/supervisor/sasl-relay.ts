import { connect, createServer, type Server, type Socket } from 'node:net';

/** Postfix keeps its auth connection between sign-ins; this only reaps ones it abandoned. */
const IDLE_TIMEOUT_MS = 5 * 60 * 1000;
/** Dovecot's replies are short; a longer line is not the auth protocol. */
const MAX_LINE_BYTES = 64 * 1024;

/**
 * Dovecot's `FAIL\t<id>\t<fields…>` for a password it could not check (Atrium away):
 * `code=temp_fail` in the 2.3 protocol, `temp` in older ones.
 */
function isTemporaryFail(line: string): boolean {
  const fields = line.replace(/\r$/, '').split('\t');
  return (
    fields[0] === 'FAIL' && fields.slice(2).some((field) => field === 'code=temp_fail' || field === 'temp')
  );
}

/**
 * Sits between Postfix (smtpd_sasl_type = dovecot) and Dovecot's auth listener, passing the
 * auth protocol through unchanged, with one exception. Postfix 3.7 ignores `code=temp_fail` and
 * answers 535 "wrong password", so a phone asks its user for the password again whenever Atrium
 * is briefly away. A lost auth connection, though, makes Postfix answer 454 "try again later":
 * so a temporary FAIL is not forwarded and both connections are dropped instead.
 * Lines are never logged: the client's carry base64 passwords. Listens on loopback only. It runs
 * in the supervisor, which outlives every server it replaces: Postfix's connections stay up
 * through an update, and only Atrium's own absence reaches Postfix, as a temporary failure.
 */
export function createSaslRelay(
  upstream: { host: string; port: number },
  log: { warn: (message: string) => void },
): Server {
  return createServer((client: Socket) => {
    client.setTimeout(IDLE_TIMEOUT_MS, () => client.destroy());
    // Writes made before the connection is up are buffered by net, so Postfix's VERSION/CPID wait.
    const dovecot = connect(upstream.port, upstream.host);
    const close = () => {
      client.destroy();
      dovecot.destroy();
    };
    client.on('error', close);
    client.on('close', close);
    // Dovecot away or gone: dropping Postfix's connection makes it answer 454, not 535.
    dovecot.on('error', (error: NodeJS.ErrnoException) => {
      log.warn(`SASL relay: Dovecot auth unreachable (${error.code ?? error.message})`);
      close();
    });
    dovecot.on('close', close);
    client.pipe(dovecot);

    let pending: Buffer = Buffer.alloc(0);
    dovecot.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let start = 0;
      for (let end = pending.indexOf(0x0a); end !== -1; end = pending.indexOf(0x0a, start)) {
        if (isTemporaryFail(pending.toString('latin1', start, end))) {
          log.warn('SASL relay: Dovecot could not check a password (temp_fail)');
          close();
          return;
        }
        start = end + 1;
      }
      // Whole lines only, so a FAIL split across chunks is still seen before any of it is sent.
      if (start > 0) client.write(pending.subarray(0, start));
      pending = pending.subarray(start);
      if (pending.length > MAX_LINE_BYTES) {
        log.warn('SASL relay: overlong line from Dovecot auth');
        close();
      }
    });
  });
}
