import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { MAIL_USER, SERVICE_USER } from '../host-layout.ts';
import { OperatorProblem } from '../operator-problem.ts';

/** Debian's packages each part needs. */
export function requiredPackages(o: { mail: boolean; webmail: boolean }, systemd: boolean): string[] {
  return [
    'caddy',
    'bind9-dnsutils',
    // What backup stores its snapshots with.
    'restic',
    // Without systemd's timer and path unit, cron runs the daily backup and the DKIM sync.
    ...(!systemd ? ['cron'] : []),
    // Rotates Atrium's, Postfix's and Dovecot's log files (/etc/logrotate.d/atrium).
    'logrotate',
    ...(o.mail ? ['postfix', 'dovecot-imapd', 'dovecot-lmtpd', 'opendkim', 'opendkim-tools'] : []),
    // Spam and forgery checks as Postfix's milter, and the store of its greylisting and Bayes data.
    ...(o.mail ? ['rspamd', 'redis-server'] : []),
    // atrium-tls-sync makes the mail host's stand-in certificate with it until Caddy has one.
    ...(o.mail ? ['openssl'] : []),
    // Calendars and contacts come with mail: same host name, same app passwords (docs/dav.md).
    ...(o.mail ? ['radicale'] : []),
    ...(o.mail && o.webmail ? ['roundcube-core', 'roundcube-sqlite3', 'php8.2-fpm', 'php8.2-sqlite3'] : []),
  ];
}

/** Debian 12 (bookworm) only: the packages' versions and paths install relies on are its own. */
export function debianProblem(osRelease = '/etc/os-release'): string | undefined {
  let text: string;
  try {
    text = readFileSync(osRelease, 'utf8');
  } catch {
    return `${osRelease}: missing — install needs Debian 12 (bookworm)`;
  }
  const field = (name: string) => new RegExp(`^${name}="?([^"\\n]*)"?`, 'm').exec(text)?.[1];
  if (field('ID') !== 'debian' || field('VERSION_ID') !== '12') {
    return `This host runs ${field('PRETTY_NAME') ?? 'an unknown system'}: install needs Debian 12 (bookworm)`;
  }
  return undefined;
}

export function missingPackages(names: string[]): string[] {
  return names.filter((name) => {
    const run = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
    return run.status !== 0 || !run.stdout.includes('install ok installed');
  });
}

/** apt-get install, with Postfix preseeded to "No configuration" (install writes main.cf). */
export function installPackages(names: string[]): void {
  spawnSync('debconf-set-selections', {
    input:
      'postfix postfix/main_mailer_type select No configuration\n' +
      'roundcube-core roundcube/dbconfig-install boolean false\n',
  });
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', '--no-install-recommends', ...names],
  ]) {
    const run = spawnSync('apt-get', args, { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (run.status !== 0) {
      const last = (run.stderr || run.stdout).trim().split('\n').pop();
      throw new OperatorProblem(
        `apt-get ${args[0]} ${names.join(' ')}: failed (${last}) — check the host's apt sources`,
      );
    }
  }
}

const exists = (database: 'passwd' | 'group', name: string) =>
  spawnSync('getent', [database, name]).status === 0;

/**
 * The system users: `atrium` runs the server, `vmail` owns the mailboxes and is in group dovecot
 * (its IMAP and LMTP processes connect to Atrium's dict socket). Each as the command that makes
 * it, so a test can make them the same way.
 */
export function systemUserCommands(o: {
  mail: boolean;
}): Array<{ describe: string; done: () => boolean; command: string[] }> {
  const commands = [
    {
      describe: `create system user ${SERVICE_USER}`,
      done: () => exists('passwd', SERVICE_USER),
      command: [
        'adduser',
        '--system',
        '--group',
        '--home',
        '/var/lib/atrium',
        '--no-create-home',
        '--shell',
        '/usr/sbin/nologin',
        SERVICE_USER,
      ],
    },
  ];
  if (o.mail) {
    commands.push(
      {
        describe: `create system user ${MAIL_USER}`,
        done: () => exists('passwd', MAIL_USER),
        command: [
          'adduser',
          '--system',
          '--group',
          '--home',
          '/var/vmail',
          '--no-create-home',
          '--shell',
          '/usr/sbin/nologin',
          MAIL_USER,
        ],
      },
      {
        describe: `add ${MAIL_USER} to group dovecot`,
        done: () =>
          spawnSync('id', ['-nG', MAIL_USER], { encoding: 'utf8' }).stdout.split(/\s+/).includes('dovecot'),
        command: ['adduser', MAIL_USER, 'dovecot'],
      },
    );
  }
  return commands;
}

export function runCommand(command: string[]): void {
  const run = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
  if (run.status !== 0) {
    throw new OperatorProblem(
      `${command.join(' ')}: ${(run.stderr || run.error?.message || 'failed').trim()}`,
    );
  }
}
