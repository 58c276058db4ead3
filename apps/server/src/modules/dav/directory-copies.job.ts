import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { DIRECTORY_COLLECTION, DIRECTORY_WRITER } from '../../operator/install/dav-files.ts';
import type { JobWorker } from '../jobs/job-worker.ts';
import { davAccountIdsOf } from './directory.repository.ts';
import { removeCollection } from './radicale-client.ts';

/**
 * Queued once per organisation by 2026_12_08_0200: removes the copies of the organisation's
 * address book that the old `dav.address-book` job wrote into every account (`/<user>/directory/`
 * on Radicale), so that upgrading frees their disk. Atrium serves the address book itself now;
 * Caddy no longer sends that path to Radicale. Gone already is fine, so a retry redoes nothing.
 */
export const REMOVE_DIRECTORY_COPIES = 'dav.remove-directory-copies';

export function registerDirectoryCopiesJob(jobs: JobWorker, db: Db, config: Config): void {
  jobs.register(REMOVE_DIRECTORY_COPIES, async (payload) => {
    const radicale = config.davRadicale;
    if (!radicale) return;
    const { organizationId } = payload as { organizationId: string };
    // One account after another: Radicale removes under one storage lock anyway.
    for (const owner of await davAccountIdsOf(db, organizationId)) {
      await removeCollection(
        radicale,
        DIRECTORY_WRITER,
        `/${encodeURIComponent(owner)}/${DIRECTORY_COLLECTION}/`,
      );
    }
  });
}
