import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ServerMessage, SupervisorMessage } from '../lib/supervised.ts';

/** One server process (main.ts) of one release, as the supervisor runs it. */
export class ServerProcess {
  readonly exited: Promise<number | null>;
  readonly release: string;
  private readonly child: ChildProcess;

  /** `standby`: it loads and waits for `go()` before opening the database (lib/supervised.ts). */
  constructor(release: string, env: NodeJS.ProcessEnv, options: { standby?: boolean } = {}) {
    this.release = release;
    // The release's own Node (a new release may bring a newer one), from the release directory.
    const node = path.join(release, 'node_modules/.bin/node');
    this.child = spawn(
      existsSync(node) ? node : process.execPath,
      [path.join(release, 'apps/server/src/main.ts')],
      {
        cwd: release,
        env: { ...env, ATRIUM_SUPERVISED: '1', ...(options.standby ? { ATRIUM_STANDBY: '1' } : {}) },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Resolves true once the server says it is ready (listening, migrated), false if it exits or times out. */
  ready(timeoutMs: number): Promise<boolean> {
    return this.said('ready', timeoutMs);
  }

  /** A standby server: true once it has loaded and waits for `go()`. */
  standingBy(timeoutMs: number): Promise<boolean> {
    return this.said('standing-by', timeoutMs);
  }

  /** Lets a standby server open the database and start serving. */
  go(): void {
    const message: SupervisorMessage = { type: 'go' };
    this.child.send(message);
  }

  private said(type: ServerMessage['type'], timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const onMessage = (message: ServerMessage) => {
        if (message?.type === type) done(true);
      };
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        resolve(ok);
      };
      this.child.on('message', onMessage);
      void this.exited.then(() => done(false));
    });
  }

  /** SIGTERM (it drains: in-flight requests and jobs finish), then SIGKILL after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
