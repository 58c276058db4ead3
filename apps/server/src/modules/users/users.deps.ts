import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Mailer } from '../../lib/mail.ts';
import type { JobWorker } from '../jobs/job-worker.ts';

/** What the users area needs from the app; passed in, never imported globally. */
export interface UsersDeps {
  db: Db;
  mailer: Mailer;
  config: Config;
  /** Woken after a change that queued a job (the subscription webhook when seats run out). */
  jobs?: Pick<JobWorker, 'wake'>;
}
