import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { fail, pass, type Check } from './check.ts';
import { converses } from './probes.ts';
import { readIfThere } from './mail-daemon-files.ts';
import { serviceCommand } from './service-commands.ts';

/** Where Postfix asks whether a sign-in on submission is right: main.cf's `smtpd_sasl_path`. */
function saslAddress(postfixDir: string): { host: string; port: number } | undefined {
  const main = readIfThere(path.join(postfixDir, 'main.cf')) ?? '';
  const found = /^smtpd_sasl_path\s*=\s*inet:(.+):(\d+)\s*$/m.exec(main);
  return found ? { host: found[1]!, port: Number(found[2]) } : undefined;
}

/** Speaks the start of Dovecot's auth protocol there: true once its handshake ends (`DONE`). */
const handshakes = (address: { host: string; port: number }) =>
  converses(address, (received) => /^DONE$/m.test(received), `VERSION\t1\t2\nCPID\t${process.pid}\n`);

/**
 * Submission's sign-ins: Postfix asks the supervisor's relay (supervisor/sasl-relay.ts), which
 * asks Dovecot's auth. Both must answer, or every phone's outgoing mail waits ("454 try again").
 */
export function saslChecks(layout: HostLayout): Check[] {
  return [
    {
      name: 'Submission sign-ins reach Dovecot',
      async run() {
        const address = saslAddress(layout.postfixDir);
        if (!address) {
          return fail('main.cf names no smtpd_sasl_path', 'npm run atrium -- install (writes it)');
        }
        const where = `${address.host}:${address.port}`;
        const outcome = await handshakes(address);
        if (outcome === 'answers') return pass(`Dovecot's auth answers through ${where}`);
        return fail(
          outcome === 'refused'
            ? `nothing answers on ${where} (Atrium's supervisor relays Postfix's sign-ins there)`
            : `no answer from Dovecot's auth through ${where}`,
          outcome === 'refused'
            ? serviceCommand(layout.root, 'atrium', 'restart')
            : serviceCommand(layout.root, 'dovecot', 'restart'),
        );
      },
    },
  ];
}
