import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/database.ts';
import { purgeForgottenDevices } from './sign-in/known-devices.ts';
import { purgeExpiredTrust } from './factors/trusted-browsers/trusted-browsers.ts';

const EVERY_MS = 10 * 60 * 1000;

/**
 * Deletes what can no longer be used: expired provider models, sessions, codes, tickets, old
 * failures, browsers whose device cookie has expired, trust and enrolments that ran out.
 */
export async function purgeExpiredIdentityData(db: Db): Promise<void> {
  await db
    .deleteFrom('oidc_payloads')
    .where('expires_at', '<', sql<Date>`now()`)
    .execute();
  await db
    .deleteFrom('console_sessions')
    .where('expires_at', '<', sql<Date>`now()`)
    .execute();
  await db
    .deleteFrom('email_codes')
    .where('created_at', '<', sql<Date>`now() - interval '1 day'`)
    .execute();
  await db
    .deleteFrom('sign_in_progress')
    .where('expires_at', '<', sql<Date>`now()`)
    .execute();
  await db
    .deleteFrom('sign_in_tickets')
    .where('expires_at', '<', sql<Date>`now()`)
    .execute();
  await db
    .deleteFrom('sign_in_failures')
    .where('failed_at', '<', sql<Date>`now() - interval '1 day'`)
    .execute();
  await purgeForgottenDevices(db);
  await purgeExpiredTrust(db);
}

/** In the server process (not in most tests): a purge every 10 minutes; several processes may run it. */
export function schedulePurge(app: FastifyInstance, db: Db): void {
  const timer = setInterval(() => {
    purgeExpiredIdentityData(db).catch((err: unknown) => app.log.warn({ err }, 'identity purge failed'));
  }, EVERY_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
