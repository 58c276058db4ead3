import type { HostLayout } from '../host-layout.ts';
import { MAIL_USER, SERVICE_USER } from '../host-layout.ts';

/**
 * The files that run Atrium as a service: systemd units where PID 1 is systemd, an init script
 * and a cron line where it is not (containers). Both run the release `current` links to, as the
 * `atrium` user, with the settings file as its environment.
 */
export const HEADER = '# Written by `npm run atrium -- install`; run it again rather than editing.\n';

export const nodeBinary = (layout: HostLayout) => `${layout.current}/node_modules/.bin/node`;

/**
 * The service's process: the supervisor, which runs the server of the release `current` links to
 * and replaces it on SIGHUP (reading the settings file at each start).
 */
export const supervisorCommand = (layout: HostLayout) =>
  `${nodeBinary(layout)} apps/server/src/supervisor/supervisor.ts --link ${layout.current} --settings ${layout.settingsFile} --status ${layout.supervisorStatus}`;

export function atriumUnit(layout: HostLayout, o: { mail: boolean }): string {
  return `${HEADER}[Unit]
Description=Atrium business suite
Documentation=file://${layout.current}/README.md
After=network-online.target postgresql.service
Wants=network-online.target

[Service]
Type=simple
User=${SERVICE_USER}
Group=${SERVICE_USER}
EnvironmentFile=${layout.settingsFile}
WorkingDirectory=${layout.current}
ExecStart=${supervisorCommand(layout)}
# A new release (update) or new settings (install) without a gap: supervisor/supervisor.ts.
ExecReload=/bin/kill -HUP $MAINPID
# The dict socket's directory: Dovecot's processes (group dovecot) connect, nobody else.
RuntimeDirectory=atrium
RuntimeDirectoryMode=0750
${o.mail ? 'ExecStartPre=+/bin/chgrp dovecot /run/atrium\n' : ''}UMask=0077
Restart=on-failure
RestartSec=2
TimeoutStopSec=20
# Sandboxing: Atrium writes only its state and backup directories.
NoNewPrivileges=yes
ProtectSystem=strict
ReadWritePaths=${layout.stateDir} ${layout.backupDir}
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictSUIDSGID=yes
RestrictNamespaces=yes
RestrictRealtime=yes
LockPersonality=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
CapabilityBoundingSet=
PrivateMounts=yes
RemoveIPC=yes
# Other processes are invisible in /proc; Node reads only its own (/proc/self) and /proc/stat etc.,
# so ProcSubset= stays (os.cpus() reads /proc/cpuinfo).
ProtectProc=invisible
# What a network service needs (@system-service) plus @pkey, which V8 uses to protect its JIT
# code where the CPU has protection keys; never setuid, chown, clock or priority changes. A call
# outside the list fails with EPERM instead of killing the process: Node raising its own limits
# (setrlimit) or a library probing a feature falls back as it does on an older kernel.
# No MemoryDenyWriteExecute: V8's JIT (and PGlite's WebAssembly) write code at run time.
SystemCallFilter=@system-service @pkey
SystemCallFilter=~@privileged @resources
SystemCallErrorNumber=EPERM
SystemCallArchitectures=native

[Install]
WantedBy=multi-user.target
`;
}

/** Runs the DKIM copy when Atrium rewrites OpenDKIM's tables (docs/mail.md, "DKIM signing"). */
export function dkimPathUnit(layout: HostLayout): string {
  return `${HEADER}[Unit]
Description=Copy Atrium's DKIM tables to OpenDKIM when Atrium rewrites them

[Path]
PathChanged=${layout.dkimDir}/KeyTable
PathChanged=${layout.dkimDir}/SigningTable

[Install]
WantedBy=multi-user.target
`;
}

/**
 * deploy/atrium-dkim-sync's arguments. On a host it reloads OpenDKIM through systemctl or its pid
 * file in /run; under --root it signals the OpenDKIM whose pid file is below the root, never the
 * host's.
 */
export function dkimSyncArgs(layout: HostLayout): string[] {
  const pidFile =
    layout.root === '/' ? [] : ['-p', `${layout.root.replace(/\/$/, '')}/run/opendkim/opendkim.pid`];
  return [...pidFile, layout.dkimDir, layout.opendkimKeysDir];
}

/**
 * Debian's /etc/init.d/opendkim passes SOCKET and PIDFILE from here over opendkim.conf's (hosts
 * without systemd); the same values as the configuration install writes.
 */
export function opendkimDefaults(port: number): string {
  return `${HEADER}RUNDIR=/run/opendkim\nSOCKET=inet:${port}@127.0.0.1\nUSER=opendkim\nGROUP=opendkim\nPIDFILE=$RUNDIR/opendkim.pid\nEXTRAAFTER=\n`;
}

export const dkimSyncScript = (layout: HostLayout) => `${layout.current}/deploy/atrium-dkim-sync`;

export function dkimServiceUnit(layout: HostLayout): string {
  return `${HEADER}[Unit]
Description=Copy Atrium's DKIM tables and keys to OpenDKIM and reload it
After=opendkim.service

[Service]
Type=oneshot
ExecStart=${dkimSyncScript(layout)} ${dkimSyncArgs(layout).join(' ')}
`;
}

/** Without systemd: the same copy every minute (it changes nothing when nothing changed). */
export function dkimCron(layout: HostLayout): string {
  return `${HEADER}* * * * * root ${dkimSyncScript(layout)} ${dkimSyncArgs(layout).join(' ')} >/dev/null\n`;
}

/**
 * /etc/init.d/atrium for hosts whose PID 1 is not systemd: the same process as atrium.service
 * (user, settings as environment through node's --env-file, umask 077, the runtime directory).
 * Like systemd it starts from an empty environment: --env-file does not override a variable that
 * is already set, so whatever the shell (or a test runner) exported would otherwise win.
 */
export function atriumInitScript(layout: HostLayout, o: { mail: boolean }): string {
  const pidFile = `${layout.runDir}/atrium.pid`;
  const log = `${layout.logDir}/atrium.log`;
  return `#!/bin/sh
### BEGIN INIT INFO
# Provides:          atrium
# Required-Start:    $network $remote_fs
# Required-Stop:     $network $remote_fs
# Default-Start:     2 3 4 5
# Default-Stop:      0 1 6
# Short-Description: Atrium business suite
### END INIT INFO
${HEADER}# Hosts whose PID 1 is systemd run atrium.service instead.
set -e
PIDFILE=${pidFile}
case "$1" in
  start)
    install -d -o ${SERVICE_USER} -g ${o.mail ? 'dovecot' : SERVICE_USER} -m 0750 ${layout.runDir}
    start-stop-daemon --start --quiet --oknodo --background --make-pidfile --pidfile "$PIDFILE" \\
      --chuid ${SERVICE_USER}:${SERVICE_USER} --chdir ${layout.current} --startas /bin/sh -- -c \\
      "umask 077; exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=${layout.stateDir} \\
        ${supervisorCommand(layout)} >>${log} 2>&1"
    ;;
  reload)
    # A new release (update) or new settings (install) without a gap: supervisor/supervisor.ts.
    start-stop-daemon --stop --signal HUP --quiet --pidfile "$PIDFILE"
    ;;
  stop)
    start-stop-daemon --stop --quiet --oknodo --pidfile "$PIDFILE" --remove-pidfile --retry TERM/20/KILL/5
    ;;
  restart)
    "$0" stop
    "$0" start
    ;;
  status)
    start-stop-daemon --status --pidfile "$PIDFILE"
    ;;
  *)
    echo "Usage: $0 start|stop|restart|reload|status" >&2
    exit 2
    ;;
esac
`;
}

export { MAIL_USER };

/**
 * Debian's caddy package has a systemd unit only. Where PID 1 is not systemd this script runs
 * the same command as caddy.service, as user caddy with the one capability the unit gives it
 * (binding ports 80 and 443), through util-linux's setpriv.
 */
export function caddyInitScript(layout: HostLayout): string {
  const root = layout.root.replace(/\/$/, '');
  const pidFile = `${root}/run/caddy.pid`;
  const log = layout.caddyLog;
  return `#!/bin/sh
### BEGIN INIT INFO
# Provides:          atrium-caddy
# Required-Start:    $network $remote_fs
# Required-Stop:     $network $remote_fs
# Default-Start:     2 3 4 5
# Default-Stop:      0 1 6
# Short-Description: Caddy in front of Atrium (hosts without systemd)
### END INIT INFO
${HEADER}set -e
PIDFILE=${pidFile}
case "$1" in
  start)
    # What Caddy says before it has read its configuration (a key it cannot read, say) goes to
    # its log file too, which must be caddy's for Caddy to write its own lines there.
    [ -f ${log} ] || install -o caddy -g adm -m 0640 /dev/null ${log}
    start-stop-daemon --start --quiet --oknodo --background --make-pidfile --pidfile "$PIDFILE" \\
      --output ${log} --startas /usr/bin/setpriv -- --reuid=caddy --regid=caddy --init-groups \\
      --inh-caps=+net_bind_service --ambient-caps=+net_bind_service \\
      env HOME=${root}/var/lib/caddy /usr/bin/caddy run --environ --config ${layout.caddyfile}
    ;;
  stop)
    start-stop-daemon --stop --quiet --oknodo --pidfile "$PIDFILE" --remove-pidfile --retry TERM/10/KILL/5
    ;;
  reload)
    /usr/bin/caddy reload --config ${layout.caddyfile} --force
    ;;
  restart)
    "$0" stop
    "$0" start
    ;;
  status)
    start-stop-daemon --status --pidfile "$PIDFILE"
    ;;
  *)
    echo "Usage: $0 start|stop|restart|reload|status" >&2
    exit 2
    ;;
esac
`;
}
