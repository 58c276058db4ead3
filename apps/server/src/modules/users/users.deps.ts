import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Mailer } from '../../lib/mail.ts';

/** What the users area needs from the app; passed in, never imported globally. */
export interface UsersDeps {
  db: Db;
  mailer: Mailer;
  config: Config;
}

/** The admin acting, as the routes know them. */
export interface Actor {
  userId: string;
  organizationId: string;
  ip: string | null;
  log: FastifyBaseLogger;
}
