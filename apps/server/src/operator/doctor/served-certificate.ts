import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { PROBE_TIMEOUT_MS } from './probes.ts';

/**
 * How a mail listener starts TLS: at once (993, 465), after SMTP's STARTTLS (25, 587) or after
 * IMAP's STARTTLS (143).
 */
export type TlsStart = 'implicit' | 'smtp' | 'imap';

export type Served =
  | {
      ok: true;
      fingerprint256: string;
      validTo: string;
      /**
       * Whether the system's roots trust it for `servername`, as a sending server enforcing
       * MTA-STS must (RFC 8461 §4.2); why not, when not.
       */
      trusted: boolean;
      untrustedBecause?: string;
    }
  | { ok: false; reason: 'unreachable' | 'no-tls'; detail: string };

/**
 * The certificate a listener serves for `servername`, unverified: doctor compares it with the
 * file the daemon should have loaded (a renewed copy that was not reloaded differs).
 */
export function servedCertificate(o: {
  host: string;
  port: number;
  start: TlsStart;
  servername: string;
}): Promise<Served> {
  return new Promise((resolve) => {
    let tls: TLSSocket | undefined;
    const plain = o.start === 'implicit' ? undefined : connectTcp(o.port, o.host);
    const timer = setTimeout(
      () => finish({ ok: false, reason: 'unreachable', detail: 'no answer within 5 s' }),
      PROBE_TIMEOUT_MS,
    );
    const finish = (result: Served) => {
      clearTimeout(timer);
      tls?.destroy();
      plain?.destroy();
      resolve(result);
    };
    const startTls = (socket?: Socket) => {
      tls = connectTls({
        ...(socket ? { socket } : { host: o.host, port: o.port }),
        servername: o.servername,
        rejectUnauthorized: false,
      });
      tls.once('secureConnect', () => {
        const peer = tls!.getPeerCertificate();
        // With rejectUnauthorized off Node still verifies the chain and the name, and says so here.
        const trusted = tls!.authorized;
        finish({
          ok: true,
          fingerprint256: peer.fingerprint256,
          validTo: peer.valid_to,
          trusted,
          ...(trusted ? {} : { untrustedBecause: String(tls!.authorizationError ?? 'not trusted') }),
        });
      });
      tls.once('error', (error: NodeJS.ErrnoException) =>
        finish({
          ok: false,
          reason: socket || error.code !== 'ECONNREFUSED' ? 'no-tls' : 'unreachable',
          detail: error.code ?? error.message,
        }),
      );
    };
    if (!plain) return startTls();
    plain.setEncoding('utf8');
    plain.once('error', (error: NodeJS.ErrnoException) =>
      finish({ ok: false, reason: 'unreachable', detail: error.code ?? error.message }),
    );
    let buffered = '';
    let step: 'greeting' | 'hello' | 'starttls' = 'greeting';
    plain.on('data', (chunk: string) => {
      buffered += chunk;
      if (!buffered.endsWith('\n')) return;
      const lines = buffered.trimEnd().split('\r\n');
      const last = lines.at(-1)!;
      if (o.start === 'smtp') {
        // A reply is complete at a line whose code is followed by a space (not a dash).
        if (!/^\d{3} /.test(last)) return;
        buffered = '';
        const code = last.slice(0, 3);
        if (step === 'greeting' && code === '220') {
          step = 'hello';
          plain.write('EHLO atrium-doctor\r\n');
        } else if (step === 'hello' && code === '250') {
          step = 'starttls';
          plain.write('STARTTLS\r\n');
        } else if (step === 'starttls' && code === '220') {
          plain.removeAllListeners('data');
          startTls(plain);
        } else {
          finish({ ok: false, reason: 'no-tls', detail: `answered ${last.trim()} to ${step}` });
        }
        return;
      }
      buffered = '';
      if (step === 'greeting' && last.startsWith('* OK')) {
        step = 'starttls';
        plain.write('a STARTTLS\r\n');
      } else if (step === 'starttls' && last.startsWith('a ')) {
        if (!last.startsWith('a OK')) {
          finish({ ok: false, reason: 'no-tls', detail: `answered ${last.trim()} to STARTTLS` });
          return;
        }
        plain.removeAllListeners('data');
        startTls(plain);
      }
    });
  });
}
