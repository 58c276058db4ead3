import { describe, expect, it } from 'vitest';
import { parseInstallOptions } from '../install/install-options.ts';
import { resticCause, saysNoRepository } from './restic-errors.ts';
import { checkParts } from './schedule.ts';

// restic 0.14's own words (Debian 12), as it printed them on this project's machine.
const where = { repository: '/srv/repo', passwordFile: '/etc/atrium/backup-password' };

describe('restic failures as one line', () => {
  it('takes only "no config there" for a repository to make', () => {
    expect(
      saysNoRepository(
        'Fatal: unable to open config file: stat /srv/repo/config: no such file or directory\nIs there a repository at the following location?\n/srv/repo\n',
      ),
    ).toBe(true);
    expect(saysNoRepository('Fatal: wrong password or no key found\n')).toBe(false);
    // An unreachable REST server says the same second line: it is no reason to `restic init`.
    expect(
      saysNoRepository(
        'Fatal: unable to open config file: client.Head: Head "http://127.0.0.1:9/x/config": dial tcp 127.0.0.1:9: connect: connection refused\nIs there a repository at the following location?\nrest:http://127.0.0.1:9/x/\n',
      ),
    ).toBe(false);
  });

  it.each([
    [
      'Fatal: wrong password or no key found',
      /^Backup repository \/srv\/repo: wrong password — \/etc\/atrium\/backup-password is not/,
    ],
    [
      'Save(<lock/4d78b37612>) returned error, retrying after 552ms: open /srv/repo/locks/4d78-tmp-1: read-only file system\ngithub.com/restic/restic/internal/backend/local.(*Local).Save\nunable to create lock in backend',
      /: read-only file system — mount its disk read-write/,
    ],
    [
      'Fatal: unable to save snapshot: write /srv/repo/data/62/6241-tmp-642316273: no space left on device',
      /: disk full \(no space left on the device\) — free space there/,
    ],
    [
      'Fatal: unable to open config file: open /srv/repo/config: permission denied',
      /: permission denied — the backup runs as root/,
    ],
    [
      'unable to create lock in backend: repository is already locked exclusively by PID 28553 on vm by root (UID 0, GID 0)\nlock was created at 2026-11-29 13:51:00 (678ms ago)',
      /: locked by another restic \(PID 28553 on vm\) — wait for it/,
    ],
    [
      'subprocess ssh: ssh: connect to host 127.0.0.1 port 22: Connection refused\nFatal: unable to open repository at sftp:nobody@127.0.0.1:/x: unable to start the sftp session, error: EOF',
      /: unreachable \(connection refused\) — check that its server answers/,
    ],
    ['Fatal: repository contains errors', /: damaged \(restic check found errors\)/],
  ])('%s', (stderr, line) => {
    const cause = resticCause(where, stderr)!;
    expect(cause).toMatch(line);
    expect(cause.split('\n')).toHaveLength(1);
  });

  it('leaves a cause it does not know to the caller', () => {
    expect(resticCause(where, 'Fatal: something new')).toBeUndefined();
  });
});

describe('the check rotation', () => {
  it('reads every pack within four weeks at the verify pace', () => {
    expect(checkParts({})).toBe(4);
    expect(checkParts({ BACKUP_VERIFY_DAYS: '1' })).toBe(28);
    expect(checkParts({ BACKUP_VERIFY_DAYS: '0' })).toBe(28);
    expect(checkParts({ BACKUP_VERIFY_DAYS: '30' })).toBe(1);
  });
});

describe('install --backup-repository', () => {
  const install = (args: string[]) =>
    parseInstallOptions(['--public-url', 'https://atrium.example.com', ...args], '/srv/atrium', undefined);

  it('takes a restic repository on another machine or disk', () => {
    expect(
      install(['--backup-repository', 'sftp:atrium@backup.example.com:/srv/atrium']).backupRepository,
    ).toBe('sftp:atrium@backup.example.com:/srv/atrium');
    expect(install(['--backup-repository', '/mnt/backup/atrium']).backupRepository).toBe(
      '/mnt/backup/atrium',
    );
    expect(install([]).backupRepository).toBeUndefined();
  });

  it('refuses what restic would not take, in one line', () => {
    expect(() => install(['--backup-repository', 'backup.example.com:/srv'])).toThrow(
      /^--backup-repository backup\.example\.com:\/srv: expected a restic repository — sftp:/,
    );
  });
});
