import { existsSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openDatabase } from './db/connect.ts';
import { tightenPermissions } from './db/data-dir.ts';
import { startupProblem } from './lib/startup-problem.ts';
import { standby, supervised, tellSupervisor, untilGo } from './lib/supervised.ts';

// Everything this process writes (DATA_DIR, the generated secret, the embedded database) is for
// its own user only, whatever umask it was started with.
process.umask(0o077);

// A .env file beside the working directory may hold the settings (README, "Configuration").
if (existsSync('.env')) process.loadEnvFile('.env');

/** Longer than Dovecot keeps an idle connection to Atrium (plugins/handover.ts). */
const HANDOVER_MS = 1500;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    return fail(error);
  }
  if (standby) await untilGo();
  // Until the app (and its logger) exists, a lost connection is reported on stderr.
  let reportConnectionError = (error: Error) => console.error(`Database connection lost: ${error.message}`);
  const opened = await openDatabase(config, {
    onConnectionError: (error) => reportConnectionError(error),
  }).catch((error: unknown) => fail(error, config));
  if (!opened) return;
  const { db } = opened;
  // buildApp reads operator files too (APP_CATALOG); a bad one stops start-up with one line.
  const app = await buildApp(config, { db, runJobs: true }).catch((error: unknown) => fail(error, config));
  if (!app) return;
  reportConnectionError = (error) =>
    app.log.warn({ err: error }, 'database connection lost; the pool opens a new one when needed');
  if (opened.tightened > 0) {
    app.log.warn(
      `DATA_DIR ${config.dataDir}: tightened permissions on ${opened.tightened} entries ` +
        'that other users could read (now directories 0700, files 0600)',
    );
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) process.exit(1); // a second signal means "now"
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // On PostgreSQL a new server has taken over (or none will: a second and a half is nothing then).
    if (supervised && config.databaseUrl) await app.handOver(HANDOVER_MS);
    await app.close();
    await db.destroy();
    // PGlite sets the modes of some files it writes itself; leave none readable by others.
    if (!config.databaseUrl) {
      try {
        tightenPermissions(path.join(config.dataDir, 'pgdata'));
      } catch (error) {
        app.log.warn({ err: error }, 'could not tighten DATA_DIR permissions');
      }
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  try {
    // Under the supervisor a new release's server shares the port with the draining one
    // (Node's reusePort, which Fastify passes on but does not declare).
    const listen = { port: config.port, host: config.host, reusePort: supervised };
    await app.listen(listen);
  } catch (error) {
    return fail(error, config);
  }
  app.log.info(`Atrium is running at ${config.publicUrl.href}`);
  tellSupervisor({ type: 'ready' });
}

/** One line for what an operator can fix (a setting, a port in use, a directory); the error otherwise. */
function fail(error: unknown, config?: Config): undefined {
  const problem = config && startupProblem(error, config);
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else if (problem) {
    console.error(problem);
  } else {
    console.error(error);
  }
  process.exit(1);
}

await main();
