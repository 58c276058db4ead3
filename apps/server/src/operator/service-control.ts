import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { HostLayout } from './host-layout.ts';

/**
 * Starting and stopping the host's services. With systemd as PID 1: systemctl. Without it
 * (containers, these test machines): the services' init scripts, Debian's for the mail daemons
 * and install's own /etc/init.d/atrium. Under `--root DIR` only scripts below DIR are run, so a
 * test never touches the host's own services.
 */
export type ServiceAction = 'start' | 'stop' | 'restart' | 'reload' | 'status';

export const hasSystemd = () => existsSync('/run/systemd/system');

export interface ServiceResult {
  ok: boolean;
  output: string;
  /** The command that was run, for the operator's log. */
  command: string;
}

export function controlService(layout: HostLayout, name: string, action: ServiceAction): ServiceResult {
  const onHost = layout.root === '/';
  const [command, args] =
    onHost && hasSystemd()
      ? ['systemctl', [action === 'status' ? 'is-active' : action, name]]
      : [path.join(layout.initDir, name), [action]];
  if (!onHost && !existsSync(command)) {
    return { ok: false, output: `${command} does not exist`, command };
  }
  const run = spawnSync(command, args as string[], { encoding: 'utf8', timeout: 60_000 });
  return {
    ok: run.status === 0,
    output: `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? String(run.error.message) : ''}`.trim(),
    command: `${command} ${(args as string[]).join(' ')}`,
  };
}
