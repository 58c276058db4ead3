import { backupTime, DEFAULT_BACKUP_TIME } from '../backup/schedule.ts';
import type { HostLayout } from '../host-layout.ts';
import type { Settings } from '../settings-file.ts';
import { nodeBinary, HEADER } from './service-files.ts';

/**
 * The daily backup (docs/backup.md): a systemd timer and the oneshot service it starts where PID
 * 1 is systemd, a cron line where it is not. Both run the serving release's CLI as root (backup
 * reads every mailbox and the settings file), at the lowest CPU and I/O priority, at BACKUP_TIME
 * (schedule.ts). BACKUP_TIME=off is read by the run itself, so the files stay the same.
 */
const pad = (n: number) => String(n).padStart(2, '0');

/** When the timer and cron line run: BACKUP_TIME, or its default when it is off. */
function scheduledAt(settings: Settings): { hour: number; minute: number } {
  const time = backupTime(settings);
  return time === 'off' ? DEFAULT_BACKUP_TIME : time;
}

/** The CLI's command line; under --root the backup is of the host below it. */
function backupCommandLine(layout: HostLayout): string {
  const root = layout.root === '/' ? '' : ` --root ${layout.root}`;
  return `${nodeBinary(layout)} apps/server/src/cli.ts backup --scheduled${root}`;
}

export function backupServiceUnit(layout: HostLayout): string {
  return `${HEADER}[Unit]
Description=Atrium backup (and a weekly verify), started by atrium-backup.timer
Documentation=file://${layout.current}/docs/backup.md
After=network-online.target atrium.service
Wants=network-online.target

[Service]
Type=oneshot
# Root: the mail of every user, the settings file and the backup password file.
User=root
WorkingDirectory=${layout.current}
ExecStart=${backupCommandLine(layout)}
UMask=0077
# Serving mail and pages comes first.
Nice=19
IOSchedulingClass=idle
`;
}

export function backupTimerUnit(settings: Settings): string {
  const { hour, minute } = scheduledAt(settings);
  return `${HEADER}[Unit]
Description=Daily Atrium backup (BACKUP_TIME in the settings file, then install)

[Timer]
OnCalendar=*-*-* ${pad(hour)}:${pad(minute)}:00
# Hosts set up alike do not all write to one backup server at the same second.
RandomizedDelaySec=30min
# A host that was off at that time backs up when it starts.
Persistent=true

[Install]
WantedBy=timers.target
`;
}

/** Without systemd: the same run from cron; its summary is in the operator log, problems reach cron's mail. */
export function backupCron(layout: HostLayout, settings: Settings): string {
  const { hour, minute } = scheduledAt(settings);
  return (
    `${HEADER}${minute} ${hour} * * * root cd ${layout.current} && ` +
    `nice -n 19 ionice -c 3 ${backupCommandLine(layout)} >/dev/null\n`
  );
}
