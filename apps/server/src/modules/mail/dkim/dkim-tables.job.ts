import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../../config.ts';
import type { Db, DbOrTrx } from '../../../db/database.ts';
import type { JobWorker } from '../../jobs/job-worker.ts';
import { enqueueUnlessQueued } from '../../jobs/jobs.repository.ts';
import { signingKeys } from './dkim-tables.repository.ts';
import { dkimTables, writeDkimTables } from './dkim-tables.ts';

/** Rewrites OpenDKIM's tables from the database (docs/mail.md, "DKIM signing"). */
export const DKIM_TABLES_JOB = 'mail.dkim-tables';

/**
 * Asks for the tables to be written again: call it in the transaction that changes which key a
 * domain signs with (a domain verified or deleted, a key switched). At most one such job waits.
 * Only a process given MAIL_DKIM_DIR asks: without it (`--no-mail`, `npm start`) no process may
 * ever run the job, and it would wait for good (the operator status's "Job queue" failing). A
 * process that writes the tables also writes them at start and every 10 minutes, so a change made
 * through a process without the setting still reaches OpenDKIM.
 */
export async function queueDkimTables(db: DbOrTrx, config: Pick<Config, 'mail'>): Promise<void> {
  if (config.mail.dkimDir) await enqueueUnlessQueued(db, DKIM_TABLES_JOB);
}

/** Reads every signing key and writes the tables; logs what changed and what was left out. */
export async function writeDkimTablesNow(
  deps: { db: Db; config: Pick<Config, 'secret' | 'mail'>; log: FastifyBaseLogger },
  dir: string,
): Promise<boolean> {
  // The KeyTable names the key files where OpenDKIM reads them (MAIL_DKIM_OPENDKIM_DIR).
  const opendkimDir = deps.config.mail.opendkimDir ?? dir;
  const tables = dkimTables(await signingKeys(deps.db), deps.config.secret, opendkimDir);
  for (const domain of tables.skipped) {
    deps.log.error(
      { domain },
      'DKIM: the key of this domain cannot be opened with ATRIUM_SECRET; not signing',
    );
  }
  const changed = writeDkimTables(dir, tables);
  if (changed) deps.log.info({ dir }, 'DKIM: OpenDKIM tables written; OpenDKIM reads them on reload');
  return changed;
}

/**
 * Only the process given MAIL_DKIM_DIR registers the job kind, so only it claims these jobs and
 * writes the files on the signer's host (as with the socketmap listener).
 */
export function registerDkimTablesJob(
  worker: JobWorker,
  deps: { db: Db; config: Config; log: FastifyBaseLogger },
): void {
  const dir = deps.config.mail.dkimDir;
  if (!dir) return;
  worker.register(DKIM_TABLES_JOB, async () => void (await writeDkimTablesNow(deps, dir)), {
    backoff: { baseMs: 5_000, capMs: 5 * 60_000 },
  });
  // Every 10 minutes: deletes the key files of retired keys and deleted domains once their grace
  // has passed, and repairs a file someone changed by hand.
  worker.addHousekeeping(async () => void (await writeDkimTablesNow(deps, dir)));
}
