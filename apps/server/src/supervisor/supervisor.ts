import { readFileSync, realpathSync } from 'node:fs';
import { parseArgs, parseEnv } from 'node:util';
import { SaslRelayListener } from './sasl-relay-listener.ts';
import { ServerProcess } from './server-process.ts';
import { writeStatus, type SupervisorStatus } from './supervisor-status.ts';

/**
 * The service's process (atrium.service, /etc/init.d/atrium): runs the server (main.ts) of the
 * release `--link` points to, and on SIGHUP (update, rollback, install) replaces it:
 * - PostgreSQL: the new release's server starts beside the serving one, sharing its ports
 *   (SO_REUSEPORT: HTTP, Postfix's socketmap) and taking over Dovecot's dict socket; only once it
 *   says it is ready is the old one told to drain (in-flight requests and jobs finish) and stop.
 *   A new server that exits or is not ready in time is stopped and never served: no gap either way.
 * - The embedded database has one user at a time: the new server starts as a standby (Node and
 *   its modules loaded), the old one stops, then the new one opens the database (the gap is that
 *   opening, under a second here); one that cannot load never stops the old one, and one that
 *   fails after gives way to the old release again.
 * It also relays Postfix's sign-ins to Dovecot (sasl-relay.ts), through every replacement.
 * The settings file is read at each start, so a replacement also applies changed settings.
 * `--status` gets a JSON line after each start (supervisor-status.ts), which update waits on.
 * SIGTERM or SIGINT: the server drains and stops, then the supervisor exits.
 */
const { values } = parseArgs({
  options: {
    link: { type: 'string' },
    settings: { type: 'string' },
    status: { type: 'string' },
  },
  strict: true,
});
if (!values.link || !values.settings || !values.status) {
  console.error('usage: supervisor.ts --link <current release link> --settings <file> --status <file>');
  process.exit(2);
}
const { link, settings, status: statusFile } = values as Record<'link' | 'settings' | 'status', string>;

/** How long a new server has to be ready: a first start creates the embedded database. */
const READY_WITHIN_MS = Number(process.env.ATRIUM_READY_TIMEOUT_MS ?? 120_000);
/** How long a server has to drain before it is killed (systemd's TimeoutStopSec is 20 s). */
const DRAIN_MS = 15_000;

/** Postfix's sign-ins reach Dovecot through here, across every replacement (sasl-relay.ts). */
const relay = new SaslRelayListener();
const state: SupervisorStatus = { pid: process.pid, serving: null, lastReload: null };
let serving: ServerProcess | undefined;
let stopping = false;
let work: Promise<void> = Promise.resolve();

function environment(): { env: NodeJS.ProcessEnv; embedded: boolean } {
  const fromFile = parseEnv(readFileSync(settings, 'utf8'));
  const base = Object.fromEntries(
    ['PATH', 'HOME', 'LANG', 'TZ'].flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : [])),
  );
  return { env: { ...base, ...fromFile }, embedded: !fromFile.DATABASE_URL };
}

function report(update: Partial<SupervisorStatus>): void {
  Object.assign(state, update, { serving: serving?.release ?? null });
  writeStatus(statusFile, state);
}

/** The serving server is watched: if it dies, so does the supervisor (systemd restarts the unit). */
function serve(server: ServerProcess): void {
  serving = server;
  void server.exited.then((code) => {
    if (server !== serving || stopping) return;
    console.error(`atrium supervisor: the server (pid ${server.pid}) exited with ${code}`);
    process.exit(code || 1);
  });
}

/** Every server started and not yet exited: a stop stops them all, the one starting too. */
const running = new Set<ServerProcess>();

function launch(release: string, env: NodeJS.ProcessEnv, options: { standby?: boolean } = {}): ServerProcess {
  const server = new ServerProcess(release, env, options);
  running.add(server);
  void server.exited.then(() => running.delete(server));
  return server;
}

async function start(): Promise<void> {
  const { env } = environment();
  await relay.apply(env);
  const server = launch(realpathSync(link), env);
  serve(server);
  await server.ready(READY_WITHIN_MS);
  report({});
}

async function replace(): Promise<void> {
  const release = realpathSync(link);
  const { env, embedded } = environment();
  await relay.apply(env);
  const old = serving;
  const at = () => new Date().toISOString();
  if (embedded && old) {
    // One process opens DATA_DIR: the next one starts and loads as a standby while the old one
    // serves, then the old one stops and the next opens the database. Nothing serves in between,
    // and nothing is watched.
    const next = launch(release, env, { standby: true });
    if (!(await next.standingBy(READY_WITHIN_MS))) {
      // It cannot even load (or read its settings): the old one never stopped.
      await next.stop(DRAIN_MS);
      return report({ lastReload: { release, at: at(), ok: false, why: 'it did not start' } });
    }
    serving = undefined;
    const gap = Date.now();
    await old.stop(DRAIN_MS);
    next.go();
    if (await next.ready(READY_WITHIN_MS)) {
      console.error(`atrium supervisor: ${release} serves after a gap of ${Date.now() - gap} ms`);
      serve(next);
      return report({ lastReload: { release, at: at(), ok: true } });
    }
    await next.stop(DRAIN_MS);
    const back = launch(old.release, env);
    if (!(await back.ready(READY_WITHIN_MS))) {
      console.error(`atrium supervisor: neither ${release} nor ${old.release} became ready`);
      process.exit(1);
    }
    serve(back);
    return report({ lastReload: { release, at: at(), ok: false, why: 'it did not become ready' } });
  }
  const next = launch(release, env);
  if (!(await next.ready(READY_WITHIN_MS))) {
    await next.stop(DRAIN_MS);
    return report({ lastReload: { release, at: at(), ok: false, why: 'it did not become ready' } });
  }
  serve(next);
  report({ lastReload: { release, at: at(), ok: true } });
  await old?.stop(DRAIN_MS);
}

const queue = (task: () => Promise<void>) => {
  work = work.then(task).catch((error: unknown) => {
    console.error('atrium supervisor:', error);
  });
};

process.on('SIGHUP', () => queue(replace));
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    stopping = true;
    relay.close();
    void Promise.all([...running].map((server) => server.stop(DRAIN_MS))).then(() => process.exit(0));
  });
}
queue(start);
