import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Mailer } from '../../lib/mail.ts';

/** What the users area needs from the app; passed in, never imported globally. */
export interface UsersDeps {
  db: Db;
  mailer: Mailer;
  config: Config;
}
