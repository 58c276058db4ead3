// The Debian packages the test suite drives (real daemons, clients and a browser): each need
// names the files that show it is there, the packages that bring them, and what to do around the
// install. Missing ones are installed as root with apt-get; otherwise the run stops with the
// command to type. One mechanism for all of them: they differed only in these fields.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync } from 'node:fs';

interface DebianNeed {
  /** What needs it, for the messages: "The DNS update tests". */
  who: string;
  files: string[];
  packages: string[];
  /** debconf answers given before the install (packages that would ask a question). */
  debconf?: string;
  noRecommends?: boolean;
  /** Services the packages start that the tests never use (they run their own instances). */
  stop?: string[];
  /** Said after the install command when it cannot be run here. */
  orElse?: string;
}

function run(command: string, args: string[], options: SpawnSyncOptions = {}): number {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  return spawnSync(command, args, { stdio: 'inherit', ...options }).status ?? 1;
}

function ensure(need: DebianNeed): void {
  const missing = need.files.filter((file) => !existsSync(file));
  if (missing.length === 0) return;
  const options = need.noRecommends ? ['--no-install-recommends'] : [];
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.log(`${missing.join(', ')} missing: installing Debian's ${need.packages.join(', ')}.`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (need.debconf) spawnSync('debconf-set-selections', { input: need.debconf });
    if (
      run('apt-get', ['update', '-qq'], { env }) === 0 &&
      run('apt-get', ['install', '-y', '-qq', ...options, ...need.packages], { env }) === 0
    ) {
      for (const service of need.stop ?? []) spawnSync('service', [service, 'stop'], { stdio: 'ignore' });
      return;
    }
  }
  console.error(
    `${need.who} need ${missing.join(' and ')}: install them (sudo apt-get install ${[...options, ...need.packages].join(' ')})${need.orElse ?? ''}.`,
  );
  process.exit(1);
}

/** Installs what the tests need and the machine lacks, or stops the run saying what to install. */
export function ensureTestPackages(chromium: string): void {
  const needs: DebianNeed[] = [
    {
      who: 'The browser tests',
      files: [chromium],
      packages: ['chromium'],
      orElse: ', or set CHROMIUM_PATH',
    },
    // The DNS update tests run BIND (named) and send updates with its nsupdate.
    {
      who: 'The DNS update tests',
      files: ['/usr/sbin/named', '/usr/bin/nsupdate'],
      packages: ['bind9', 'bind9-dnsutils'],
    },
    {
      // The mail tests run Postfix and Dovecot with their own configuration on loopback ports;
      // Postfix is installed with "No configuration" and neither package's service is used.
      who: 'The mail tests',
      files: ['/usr/sbin/postfix', '/usr/sbin/dovecot', '/usr/lib/dovecot/lmtp', '/usr/lib/dovecot/imap'],
      packages: ['postfix', 'dovecot-imapd', 'dovecot-lmtpd'],
      debconf: 'postfix postfix/main_mailer_type select No configuration\n',
      stop: ['postfix', 'dovecot'],
    },
    // Submitted mail is signed by OpenDKIM (its own configuration, a loopback port).
    {
      who: 'The mail tests',
      files: ['/usr/sbin/opendkim'],
      packages: ['opendkim', 'opendkim-tools'],
      stop: ['opendkim'],
    },
    {
      // The backup test stores snapshots with restic (as `npm run atrium -- backup` does), and
      // `install --root` refuses a host without what install needs: cron (the daily backup and the
      // DKIM sync) where PID 1 is not systemd, as on these machines, and logrotate (the install
      // test checks its file with `logrotate -d`). The tests run cron's commands themselves.
      who: 'The backup and install tests',
      files: ['/usr/bin/restic', '/usr/sbin/cron', '/usr/sbin/logrotate'],
      packages: ['restic', 'cron', 'logrotate'],
      stop: ['cron'],
    },
    // The SPF test asks pyspf whether the records Atrium prints pass.
    { who: 'The SPF test', files: ['/usr/lib/python3/dist-packages/spf.py'], packages: ['python3-spf'] },
    {
      // Roundcube served as install serves it: PHP-FPM behind Caddy, no database of the package's.
      who: 'The webmail test',
      files: [
        '/var/lib/roundcube/public_html/index.php',
        '/usr/bin/php',
        '/usr/sbin/php-fpm8.2',
        '/usr/bin/caddy',
      ],
      packages: ['roundcube-core', 'roundcube-sqlite3', 'php-cli', 'php-sqlite3', 'php8.2-fpm', 'caddy'],
      debconf: 'roundcube-core roundcube/dbconfig-install boolean false\n',
      noRecommends: true,
    },
    {
      // Radicale behind Caddy, as install sets it up, and Debian's CalDAV/CardDAV clients:
      // vdirsyncer syncs, khal and khard read what it synced.
      who: 'The DAV tests',
      files: ['/usr/bin/radicale', '/usr/bin/vdirsyncer', '/usr/bin/khal', '/usr/bin/khard'],
      packages: ['radicale', 'vdirsyncer', 'khal', 'khard'],
      stop: ['radicale'],
    },
  ];
  for (const need of needs) ensure(need);
}
