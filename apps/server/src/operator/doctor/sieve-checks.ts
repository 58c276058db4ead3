import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SIEVE_FILES } from '../../modules/mail/config/dovecot-config.ts';
import type { HostLayout } from '../host-layout.ts';
import { fail, pass, type Check } from './check.ts';
import { converses } from './probes.ts';
import { dovecotListeners } from './mail-daemon-files.ts';
import { serviceCommand } from './service-commands.ts';

// Filters, Junk and out-of-office (docs/mail.md): Debian's Pigeonhole packages, ManageSieve
// answering, and the global Junk script compiling as Dovecot compiles it at delivery.

/** What Debian's dovecot-sieve and dovecot-managesieved install. */
export const PIGEONHOLE_FILES = [
  '/usr/lib/dovecot/modules/lib90_sieve_plugin.so',
  '/usr/lib/dovecot/modules/lib95_imap_sieve_plugin.so',
  '/usr/lib/dovecot/modules/sieve/lib90_sieve_extprograms_plugin.so',
  '/usr/lib/dovecot/managesieve',
  '/usr/bin/sievec',
];
const INSTALL = 'apt-get install dovecot-sieve dovecot-managesieved';

/** ManageSieve's greeting (RFC 5804 §1.7): capability lines, then `OK`. */
const greets = (address: { host: string; port: number }) =>
  converses(address, (received) => /^"IMPLEMENTATION"/im.test(received) && /^OK\b/m.test(received));

export function sieveChecks(layout: HostLayout, files = PIGEONHOLE_FILES): Check[] {
  return [
    {
      name: 'Sieve (Pigeonhole)',
      async run() {
        const missing = files.filter((file) => !existsSync(file));
        if (missing.length > 0) return fail(`missing ${missing.join(', ')}`, INSTALL);
        return pass('the Sieve, IMAPSieve and ManageSieve parts of Dovecot are installed');
      },
    },
    {
      name: 'ManageSieve answers',
      async run() {
        const listener = dovecotListeners(layout.dovecotDir).find((l) => l.label === 'dovecot sieve');
        if (!listener) return fail('dovecot.conf has no ManageSieve listener', 'npm run atrium -- install');
        const where = `${listener.host}:${listener.port}`;
        const outcome = await greets(listener);
        if (outcome === 'answers') return pass(`ManageSieve greets on ${where}`);
        return fail(
          outcome === 'refused' ? `nothing answers on ${where}` : `no ManageSieve greeting on ${where}`,
          serviceCommand(layout.root, 'dovecot', 'restart'),
        );
      },
    },
    {
      name: 'Junk filing script',
      async run() {
        const script = path.join(layout.dovecotDir, SIEVE_FILES.junk);
        if (!existsSync(script)) return fail(`${script} is missing`, 'npm run atrium -- install');
        // Compiled into a directory of its own: the script's directory is root's and stays clean.
        const out = mkdtempSync(path.join(tmpdir(), 'atrium-sievec-'));
        try {
          const compiled = spawnSync(
            'sievec',
            ['-c', path.join(layout.dovecotDir, 'dovecot.conf'), script, path.join(out, 'junk.svbin')],
            { encoding: 'utf8', timeout: 10_000 },
          );
          if (compiled.status === 0) return pass(`${SIEVE_FILES.junk} compiles`);
          const why = `${compiled.stderr ?? ''}${compiled.stdout ?? ''}`.trim().split('\n')[0];
          return fail(`${SIEVE_FILES.junk} does not compile: ${why || compiled.error?.message}`, INSTALL);
        } finally {
          rmSync(out, { recursive: true, force: true });
        }
      },
    },
  ];
}
