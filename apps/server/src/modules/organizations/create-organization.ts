import type { Transaction } from 'kysely';
import type { Config } from '../../config.ts';
import type { Database, DbOrTrx } from '../../db/database.ts';
import { installDefaultApps } from '../apps/default-apps.ts';
import { queueSiteRecord } from '../dns-updates/dns-updates.service.ts';
import { startSubscription } from '../subscriptions/subscription-start.ts';

/** The system admin group; its members are the organisation's admins. */
export const ADMIN_GROUP_NAME = 'Dashboard';

export interface NewOrganization {
  name: string;
  /** Already checked (format, reserved names); uniqueness is the database's unique constraint. */
  siteName: string;
  admin: { email: string; firstName: string; lastName: string; passwordHash: string | null };
}

export interface CreatedOrganization {
  organizationId: string;
  adminUserId: string;
  dashboardGroupId: string;
}

/**
 * An organisation with its first admin: the organisation, the admin user, the system `Dashboard`
 * group with the admin in it, the default apps, and (with DNS_UPDATE_SERVER) the job that publishes
 * its site record — all or nothing. Pass an open transaction to
 * make it part of a larger one (sign-up); given the database, it opens its own (operator command).
 * A taken site name or e-mail surfaces as the unique violation (SQLSTATE 23505) for the caller to map.
 */
export async function createOrganization(
  db: DbOrTrx,
  config: Config,
  input: NewOrganization,
): Promise<CreatedOrganization> {
  if (!db.isTransaction) return db.transaction().execute((trx) => createOrganization(trx, config, input));
  const trx = db as Transaction<Database>;
  const org = await trx
    .insertInto('organizations')
    .values({ name: input.name, site_name: input.siteName })
    .returning('id')
    .executeTakeFirstOrThrow();
  const admin = await trx
    .insertInto('users')
    .values({
      organization_id: org.id,
      email: input.admin.email.toLowerCase(),
      first_name: input.admin.firstName,
      last_name: input.admin.lastName,
      name_key: `${input.admin.firstName} ${input.admin.lastName}`.toLowerCase(),
      password_hash: input.admin.passwordHash,
      password_changed_at: input.admin.passwordHash ? new Date() : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const group = await trx
    .insertInto('groups')
    .values({
      organization_id: org.id,
      name: ADMIN_GROUP_NAME,
      name_key: ADMIN_GROUP_NAME.toLowerCase(),
      is_system: true,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('group_members')
    .values({ group_id: group.id, user_id: admin.id, organization_id: org.id })
    .execute();
  await installDefaultApps(trx, config, { id: org.id, siteName: input.siteName });
  await queueSiteRecord(trx, config, input.siteName);
  await startSubscription(trx, config, org.id, null);
  return { organizationId: org.id, adminUserId: admin.id, dashboardGroupId: group.id };
}
