import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { AppCatalog } from '../apps/catalog.ts';
import { registerWebmailHostsJob, writeWebmailHostsNow } from './webmail-hosts.job.ts';

/**
 * Roundcube on this host (WEBMAIL_CONFIG_DIR): the job that keeps its per-host files, and a
 * rewrite at start-up, so files are right even if jobs were lost or the secret changed.
 */
export function registerWebmail(
  app: FastifyInstance,
  deps: { db: Db; config: Config; catalog: AppCatalog },
): void {
  const log = app.log.child({ module: 'webmail' });
  registerWebmailHostsJob(app.jobs, { ...deps, log });
  const dir = deps.config.webmail?.configDir;
  // A directory Atrium cannot write stops start-up here, as MAIL_DKIM_DIR does.
  if (dir) app.addHook('onReady', async () => void (await writeWebmailHostsNow({ ...deps, log }, dir)));
}
