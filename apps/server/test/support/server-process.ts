import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './free-port.ts';

const main = path.resolve(import.meta.dirname, '../../src/main.ts');

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** True until the process ends, whatever the reason. */
  alive(): boolean;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * The real server (src/main.ts) in its own process, with exactly `env` (plus PATH and the port),
 * ready when this resolves. `umask` starts it under that umask, as a shell would.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: { umask?: string } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const fullEnv = { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', ...env };
  const child = options.umask
    ? spawn('/bin/sh', ['-c', `umask ${options.umask} && exec "$0" "$1"`, process.execPath, main], {
        env: fullEnv,
      })
    : spawn(process.execPath, [main], { env: fullEnv });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  let running = true;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running = false;
      resolve(code);
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    child,
    url,
    output: () => output,
    exited,
    alive: () => running,
    async stop() {
      if (running) child.kill('SIGTERM');
      return exited;
    },
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (!running) throw new Error(`the server exited before it was ready:\n${output}`);
    try {
      if ((await fetch(`${url}/api/ready`)).ok) return server;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await server.stop();
  throw new Error(`the server did not become ready:\n${output}`);
}
