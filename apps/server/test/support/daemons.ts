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

/**
 * Ends the daemons a test started (SIGTERM, or `signal`) and waits until each has exited; children
 * not started or already gone are passed over.
 */
export async function stopChildren(
  children: (ChildProcess | undefined)[],
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill(signal);
        }),
    ),
  );
}

/** Runs a command to its end without holding up the event loop; its exit status (null: could not run). */
export function exitStatus(file: string, args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: 'ignore' });
    child.once('error', () => resolve(null));
    child.once('close', (code) => resolve(code));
  });
}

/** `postfix stop`, then waits (up to 10 s) until `postfix status` says its master has gone: it leaves after `stop` returns. */
export async function stopPostfix(configDir: string): Promise<void> {
  await exitStatus('/usr/sbin/postfix', ['-c', configDir, 'stop']);
  const deadline = Date.now() + 10_000;
  while (
    (await exitStatus('/usr/sbin/postfix', ['-c', configDir, 'status'])) === 0 &&
    Date.now() < deadline
  ) {
    await new Promise((r) => setTimeout(r, 100));
  }
}
