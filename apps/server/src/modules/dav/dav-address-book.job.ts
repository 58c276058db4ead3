import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { DIRECTORY_COLLECTION, DIRECTORY_WRITER } from '../../operator/install/dav-files.ts';
import type { JobWorker } from '../jobs/job-worker.ts';
import { groupAddressCard, personCard } from './address-book-cards.ts';
import { davAccountsOf, directoryOf } from './dav.repository.ts';
import { replaceAddressBook, type RadicaleAddress } from './radicale-client.ts';

/** Queued by the triggers of 2026_12_04_0100 when an organisation's directory changes. */
export const SYNC_ADDRESS_BOOK = 'dav.address-book';

/** The job the triggers queue, for code that queues it itself. */
export const addressBookJob = (organizationId: string) => ({
  kind: SYNC_ADDRESS_BOOK,
  payload: { organizationId },
  organizationId,
  maxAttempts: 10,
});

/**
 * Writes the organisation's address book into the accounts of `userIds` (all of its DAV accounts
 * by default). Each account holds its own copy: clients list only the address books under the
 * user's own home, and Radicale has no shared collection to put there (docs/dav.md).
 */
export async function syncAddressBook(
  deps: { db: Db; radicale: RadicaleAddress },
  organizationId: string,
  userIds?: string[],
): Promise<void> {
  const directory = await directoryOf(deps.db, organizationId);
  if (!directory) return;
  const vcards = [
    ...directory.people.map((person) => personCard(person, directory.organization)),
    ...directory.groups.map((group) => groupAddressCard(group, directory.organization)),
  ];
  // One at a time: Radicale writes under one lock anyway.
  for (const owner of userIds ?? (await davAccountsOf(deps.db, organizationId))) {
    await replaceAddressBook(deps.radicale, {
      writer: DIRECTORY_WRITER,
      owner,
      name: DIRECTORY_COLLECTION,
      displayName: directory.organization,
      description: `Everyone at ${directory.organization} (kept by Atrium, read only)`,
      vcards,
    });
  }
}

/** Without Radicale on this host (no DAV_RADICALE_ADDRESS) there is nothing to write. */
export function registerAddressBookJob(jobs: JobWorker, db: Db, config: Config): void {
  jobs.register(SYNC_ADDRESS_BOOK, async (payload) => {
    const { organizationId } = payload as { organizationId: string };
    if (config.davRadicale) await syncAddressBook({ db, radicale: config.davRadicale }, organizationId);
  });
}
