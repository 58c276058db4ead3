import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { queueSiteRecord } from '../dns-updates/dns-updates.service.ts';

/**
 * Deletes an organisation and everything it owns (the foreign keys cascade), and queues the
 * removal of its site record (with DNS_UPDATE_SERVER) in the same transaction. Undefined when
 * no organisation has that site name.
 */
export async function deleteOrganization(
  db: Db,
  config: Config,
  siteName: string,
): Promise<{ organizationId: string; name: string } | undefined> {
  return db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom('organizations')
      .where('site_name', '=', siteName)
      .returning(['id', 'name'])
      .executeTakeFirst();
    if (!deleted) return undefined;
    await queueSiteRecord(trx, config, siteName);
    return { organizationId: deleted.id, name: deleted.name };
  });
}
