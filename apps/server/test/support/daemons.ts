import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';

/** Whether something accepts TCP connections on the loopback `port`. */
export const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** The end of a daemon's log file, for a failure message. */
export const readLog = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').slice(-4000) : '(no log)';

/** A system user's uid and gid. */
export function uidOf(user: string): { uid: number; gid: number } {
  const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim();
  const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim();
  return { uid: Number(uid), gid: Number(gid) };
}

/** A daemon started in the foreground, keeping what it writes to stdout and stderr for a failure message. */
export function spawnDaemon(
  command: string,
  args: string[],
): { child: ChildProcess; output: () => string; exited: () => boolean } {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited = false;
  child.once('exit', () => (exited = true));
  return { child, output: () => output, exited: () => exited };
}

/** Ends the daemons a test started (SIGTERM) and waits until each has exited. */
export async function stopChildren(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}
