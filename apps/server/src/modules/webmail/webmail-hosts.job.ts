import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db, DbOrTrx } from '../../db/database.ts';
import { openClientSecret } from '../../oidc/client-secrets.ts';
import type { AppCatalog } from '../apps/catalog.ts';
import type { JobWorker } from '../jobs/job-worker.ts';
import { enqueueUnlessQueued } from '../jobs/jobs.repository.ts';
import { verifiedDomainsOf, webmailApps } from './webmail-hosts.repository.ts';
import { webmailHostFiles, writeWebmailHostFiles } from './webmail-hosts.ts';

/** Rewrites Roundcube's per-host files from the database (docs/mail.md, "Roundcube: the Mail app"). */
export const WEBMAIL_HOSTS_JOB = 'webmail.host-files';
/** The catalog template whose apps are this Roundcube. */
export const MAIL_TEMPLATE = 'mail';

/**
 * Asks for the files to be written again: call it in the transaction that installs, changes,
 * uninstalls or rotates the secret of a Mail app. At most one such job waits.
 */
export function queueWebmailHosts(db: DbOrTrx): Promise<void> {
  return enqueueUnlessQueued(db, WEBMAIL_HOSTS_JOB);
}

type Deps = { db: Db; config: Config; catalog: AppCatalog; log: FastifyBaseLogger };

/** Reads every Mail app and writes the files; logs what changed and which apps got none. */
export async function writeWebmailHostsNow(deps: Deps, dir: string): Promise<string[]> {
  const { db, config, catalog, log } = deps;
  const template = catalog.find(MAIL_TEMPLATE);
  if (!template || !config.webmail) return [];
  const rows = await webmailApps(db, MAIL_TEMPLATE);
  const verifiedDomains = await verifiedDomainsOf(db, [...new Set(rows.map((r) => r.organization_id))]);
  const written = webmailHostFiles(rows, {
    config: { ...config, webmail: config.webmail },
    template,
    openSecret: (sealed) => openClientSecret(config, sealed),
    verifiedDomains,
  });
  for (const { appId, reason } of written.skipped) {
    log.info({ appId, reason }, 'Webmail: this Mail app is not Roundcube on this host; no file written');
  }
  const changed = writeWebmailHostFiles(dir, written);
  if (changed.length > 0) log.info({ dir, files: changed }, 'Webmail: Roundcube host files written');
  return changed;
}

/**
 * Only the process given WEBMAIL_CONFIG_DIR registers the job kind, so only it claims these jobs
 * and writes the files on Roundcube's host (as with OpenDKIM's tables).
 */
export function registerWebmailHostsJob(worker: JobWorker, deps: Deps): void {
  const dir = deps.config.webmail?.configDir;
  if (!dir) return;
  worker.register(WEBMAIL_HOSTS_JOB, async () => void (await writeWebmailHostsNow(deps, dir)), {
    backoff: { baseMs: 5_000, capMs: 5 * 60_000 },
  });
  // Every 10 minutes: a domain verified or deleted since, or a file changed by hand.
  worker.addHousekeeping(async () => void (await writeWebmailHostsNow(deps, dir)));
}
