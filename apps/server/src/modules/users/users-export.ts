import { Readable } from 'node:stream';
import type { DbOrTrx } from '../../db/database.ts';
import { csvCell } from '../../lib/csv.ts';
import { listUsers } from './users-list.service.ts';
import type { UserListFilter } from './users-list.repository.ts';
import { personalEmailsOf } from './users.repository.ts';

const EXPORT_BATCH = 1000;
/**
 * "Personal email" is the import's own name for that column (migration/csv-formats.ts), so an
 * export imports again with the addresses invitations go to.
 */
const HEADER = [
  'First name',
  'Last name',
  'E-mail',
  'Personal email',
  'Status',
  'Groups',
  'Last sign-in',
  'Created',
];

/**
 * One CSV field, always quoted; a value a spreadsheet would run as a formula gets a leading
 * apostrophe (lib/csv.ts, one rule for every CSV the server writes).
 */
export const csvField = (value: string): string => csvCell(value);

export const csvRow = (fields: string[]) => fields.map(csvField).join(',') + '\r\n';

/**
 * The filtered users list as CSV, streamed: it reads keyset pages of 1,000 as the client
 * consumes them, so 100,000 users never sit in memory at once. Starts with a UTF-8 BOM so
 * spreadsheet programs read accented names correctly. The first page is read before the stream
 * is returned, so a query the database refuses is an error response, not a 200 cut short.
 */
export async function exportUsersCsv(
  db: DbOrTrx,
  organizationId: string,
  filter: UserListFilter,
  batchSize = EXPORT_BATCH,
): Promise<Readable> {
  const first = await listUsers(db, organizationId, filter, undefined, batchSize);
  async function* rows() {
    yield '\uFEFF' + csvRow(HEADER);
    let page = first;
    for (;;) {
      let chunk = '';
      const personal = await personalEmailsOf(
        db,
        organizationId,
        page.users.map((u) => u.id),
      );
      for (const u of page.users) {
        chunk += csvRow([
          u.firstName,
          u.lastName,
          u.email,
          personal.get(u.id) ?? '',
          u.status,
          u.groups.map((g) => g.name).join('; '),
          u.lastSignInAt ?? '',
          u.createdAt,
        ]);
      }
      if (chunk) yield chunk;
      if (!page.nextCursor) return;
      page = await listUsers(db, organizationId, filter, page.nextCursor, batchSize);
    }
  }
  return Readable.from(rows());
}
