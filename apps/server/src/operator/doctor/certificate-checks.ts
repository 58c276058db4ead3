import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type PeerCertificate, type TLSSocket } from 'node:tls';
import type { DnsClient } from '../../lib/dns.ts';
import { fail, pass, type Check } from './check.ts';

/** Fewer days than this before expiry fail: Caddy renews at a third of 90 days, so 14 means it is stuck. */
const MIN_DAYS_LEFT = 14;
const TIMEOUT_MS = 5_000;
const DAY_MS = 24 * 60 * 60_000;

export interface CertificateTarget {
  /** The public name the certificate must be valid for. */
  host: string;
  port: number;
  /** `https` connects with TLS at once; `smtp` says EHLO and STARTTLS first (submission). */
  protocol: 'https' | 'smtp';
  /** What renews it, for the fix. */
  renewedBy: string;
  /**
   * Where to connect instead of where the name resolves: Caddy on this host, asked for the name
   * (SNI), so the line is about what this host serves whatever DNS says.
   */
  address?: string;
}

export interface CertificateCheckOptions {
  /** Resolves the name as Atrium does (DNS_SERVERS); without it the system's resolver. */
  dns?: DnsClient;
  /** The trusted roots (with Caddy's own CA or the operator's certificate); the system's otherwise. */
  ca?: string | string[];
}

/**
 * Each public name's certificate, as a client sees it: trusted, valid for the name, and its
 * days left. Unreachable, untrusted or expiring within two weeks fails.
 */
export function certificateChecks(
  targets: CertificateTarget[],
  options: CertificateCheckOptions = {},
): Check[] {
  return targets.map((target) => ({
    name: `Certificate of ${target.host}:${target.port}`,
    async run() {
      let address = target.address ?? target.host;
      if (options.dns && !target.address) {
        const answer = await options.dns.a(target.host);
        if (answer.status !== 'found' || answer.records.length === 0) {
          return fail(
            `${target.host} has no A record${answer.status === 'failed' ? ` (${answer.message})` : ''}`,
            `publish ${target.host}. A <this host's public IPv4 address>`,
          );
        }
        address = answer.records[0]!;
      }
      let certificate: PeerCertificate;
      try {
        certificate = await peerCertificate(address, target, options.ca);
      } catch (error) {
        return fail(
          `${target.host}:${target.port} ${(error as Error).message}`,
          `make ${target.host} reach this host on port ${target.port} with a trusted certificate (${target.renewedBy})`,
        );
      }
      const daysLeft = Math.floor((new Date(certificate.valid_to).getTime() - Date.now()) / DAY_MS);
      const detail = `valid for ${daysLeft} more days (until ${new Date(certificate.valid_to).toISOString().slice(0, 10)})`;
      if (daysLeft < MIN_DAYS_LEFT) return fail(detail, `renew it (${target.renewedBy})`);
      return pass(detail);
    },
  }));
}

/** Connects (STARTTLS for SMTP), verifies the chain and the name, and returns the leaf certificate. */
export function peerCertificate(
  address: string,
  target: CertificateTarget,
  ca?: string | string[],
): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    let tls: TLSSocket | undefined;
    // SMTP: the greeting, EHLO, STARTTLS, then TLS on the same connection (RFC 3207).
    const plain = target.protocol === 'smtp' ? connectTcp(target.port, address) : undefined;
    const timer = setTimeout(
      () => finish(new Error(`did not answer within ${TIMEOUT_MS / 1000} s`)),
      TIMEOUT_MS,
    );
    const finish = (error: Error | undefined, certificate?: PeerCertificate) => {
      clearTimeout(timer);
      tls?.destroy();
      plain?.destroy();
      if (error) reject(error);
      else resolve(certificate!);
    };
    const startTls = (socket?: Socket) => {
      tls = connectTls({
        ...(socket ? { socket } : { host: address, port: target.port }),
        servername: target.host,
        ...(ca ? { ca } : {}),
      });
      tls.once('secureConnect', () => finish(undefined, tls!.getPeerCertificate()));
      tls.once('error', (error: NodeJS.ErrnoException) => finish(new Error(describeFailure(error))));
    };
    if (!plain) return startTls();
    plain.setEncoding('utf8');
    let buffered = '';
    let step: 'greeting' | 'ehlo' | 'starttls' = 'greeting';
    plain.on('data', (chunk: string) => {
      buffered += chunk;
      // A reply is complete at a line whose code is followed by a space (not a dash).
      const last = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n$/.exec(buffered);
      if (!last) return;
      const code = last[1]!;
      buffered = '';
      if (step === 'greeting' && code === '220') {
        step = 'ehlo';
        plain.write('EHLO atrium-doctor\r\n');
      } else if (step === 'ehlo' && code === '250') {
        step = 'starttls';
        plain.write('STARTTLS\r\n');
      } else if (step === 'starttls' && code === '220') {
        plain.removeAllListeners('data');
        startTls(plain);
      } else {
        finish(new Error(`answered ${code} to ${step === 'starttls' ? 'STARTTLS' : step}: no TLS offered`));
      }
    });
    plain.once('error', (error: NodeJS.ErrnoException) => finish(new Error(describeFailure(error))));
  });
}

const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);

/** "cannot be reached (ECONNREFUSED)" or "certificate not accepted: <why>" (expired, other name, untrusted). */
function describeFailure(error: NodeJS.ErrnoException): string {
  if (error.code && NETWORK_ERRORS.has(error.code)) return `cannot be reached (${error.code})`;
  return `certificate not accepted: ${error.message}`;
}
