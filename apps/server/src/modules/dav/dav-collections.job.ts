import type { Config } from '../../config.ts';
import type { DbOrTrx } from '../../db/database.ts';
import { enqueueUnlessPending } from '../jobs/jobs.repository.ts';
import type { JobWorker } from '../jobs/job-worker.ts';
import { removeUserCollections } from './radicale-client.ts';

export const REMOVE_DAV_COLLECTIONS = 'dav.remove-collections';

/**
 * Queued in the transaction that deletes a user: their calendars and address books go with them.
 * At once, like their mail: a deleted user's mailbox gets no grace either (docs/mail.md).
 */
export async function queueDavCollectionsRemoval(
  trx: DbOrTrx,
  user: { organizationId: string; userId: string },
): Promise<void> {
  // Once per user: a removal waiting or under way covers any later request for it.
  await enqueueUnlessPending(
    trx,
    { kind: REMOVE_DAV_COLLECTIONS, payload: { userId: user.userId }, organizationId: user.organizationId },
    'userId',
  );
}

/** Without Radicale on this host (no DAV_RADICALE_ADDRESS) there is nothing to remove. */
export function registerDavCollectionsJob(jobs: JobWorker, config: Config): void {
  jobs.register(REMOVE_DAV_COLLECTIONS, async (payload) => {
    const { userId } = payload as { userId: string };
    if (config.davRadicale) await removeUserCollections(config.davRadicale, userId);
  });
}
