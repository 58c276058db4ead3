import { existsSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { connectDatabase } from './db/connect.ts';
import { migrateToLatest } from './db/migrate.ts';

// A .env file beside the working directory may hold the settings (PRODUCT.md §8).
if (existsSync('.env')) process.loadEnvFile('.env');

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    return fail(error);
  }
  const db = await connectDatabase({
    databaseUrl: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, 'pgdata'),
  }).catch(fail);
  if (!db) return;
  await migrateToLatest(db);
  // buildApp reads operator files too (APP_CATALOG); a bad one stops start-up with one line.
  const app = await buildApp(config, { db, runJobs: true }).catch(fail);
  if (!app) return;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) process.exit(1); // a second signal means "now"
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await db.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Atrium is running at ${config.publicUrl.href}`);
}

function fail(error: unknown): undefined {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
}

await main();
