import {
  ALIASES_PAGE_SIZE,
  MAX_ALIASES_PER_USER,
  type AddMailAliasBody,
  type MailAddressInput,
  type MailAlias,
  type MailAliasesPage,
} from '@atrium/contracts/mail-addresses';
import type { Db, DbOrTrx } from '../../../db/database.ts';
import { conflict, fieldError, notFound } from '../../../lib/errors.ts';
import { prefixPattern } from '../../../lib/prefix-pattern.ts';
import { recordActivity } from '../../activity/activity.repository.ts';
import type { Actor } from '../../organizations/actor.ts';
import { actorLabel } from '../../users/users.repository.ts';
import {
  addressHolder,
  countAliases,
  deleteAlias,
  insertAddress,
  listAliases,
  lockUser,
  verifiedDomain,
  type AliasRow,
} from './mail-addresses.repository.ts';
import { decodeAddressCursor, encodeAddressCursor } from './address-cursor.ts';

// Users' aliases (Mail Settings). Group addresses and catch-alls: mail-routing.service.ts.
// Every address is unique across the deployment: mail_addresses' unique index decides, even when
// two requests race; the checks before it are there to name the clash in words.

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23505';

/** The error that names who holds `address` already (the field is the form's local part). */
export async function addressClash(db: DbOrTrx, organizationId: string, address: string) {
  const holder = await addressHolder(db, organizationId, address);
  let message = `${address} is already in use`;
  if (holder && !holder.ours) message = `${address} is already in use in another organisation`;
  else if (holder?.kind === 'primary') message = `${address} is already the address of ${holder.userName}`;
  else if (holder?.kind === 'alias') message = `${address} is already an alias of ${holder.userName}`;
  else if (holder?.kind === 'group')
    message = `${address} is already the address of the group ${holder.groupName}`;
  return fieldError('localPart', message, 'address_in_use');
}

/**
 * The address `input` names, on one of the organisation's verified domains and free so far;
 * refused with the field at fault otherwise.
 */
export async function freeAddressOn(db: DbOrTrx, actor: Actor, input: MailAddressInput) {
  const domain = await verifiedDomain(db, actor.organizationId, { name: input.domain });
  if (!domain) throw fieldError('domain', 'Choose one of your organisation’s verified domains');
  const address = `${input.localPart.toLowerCase()}@${domain.name}`;
  if (await addressHolder(db, actor.organizationId, address)) {
    throw await addressClash(db, actor.organizationId, address);
  }
  return { address, domain };
}

/** Runs `change`; a unique violation (someone took the address meanwhile) names the clash. */
export async function claiming<T>(db: Db, actor: Actor, address: string, change: () => Promise<T>) {
  try {
    return await change();
  } catch (error) {
    if (isUniqueViolation(error)) throw await addressClash(db, actor.organizationId, address);
    throw error;
  }
}

export async function logMailChange(
  db: DbOrTrx,
  actor: Actor,
  action: string,
  target: { type: string; id: string; label: string },
  details: Record<string, unknown>,
) {
  await recordActivity(db, {
    organizationId: actor.organizationId,
    actor: { userId: actor.userId, label: await actorLabel(db, actor.organizationId, actor.userId) },
    action,
    target,
    ip: actor.ip,
    details,
  });
}

const toAlias = (row: AliasRow): MailAlias => ({
  id: row.id,
  address: row.address,
  user: { id: row.user_id, name: `${row.first_name} ${row.last_name}`.trim(), email: row.email },
  createdAt: row.created_at.toISOString(),
});

/** A page of the organisation's aliases in address order; `q` filters by the address's start. */
export async function getAliases(
  db: Db,
  actor: Actor,
  query: { q?: string | undefined; cursor?: string | undefined },
): Promise<MailAliasesPage> {
  const rows = await listAliases(db, actor.organizationId, {
    ...(query.q ? { prefix: prefixPattern(query.q) } : {}),
    ...(query.cursor ? { after: decodeAddressCursor(query.cursor) } : {}),
    limit: ALIASES_PAGE_SIZE + 1,
  });
  const page = rows.slice(0, ALIASES_PAGE_SIZE);
  return {
    aliases: page.map(toAlias),
    nextCursor: rows.length > ALIASES_PAGE_SIZE ? encodeAddressCursor(page.at(-1)!.address) : null,
  };
}

/** Gives a user of the organisation another address; at most MAX_ALIASES_PER_USER each. */
export async function addAlias(db: Db, actor: Actor, input: AddMailAliasBody): Promise<MailAlias> {
  const { address, domain } = await freeAddressOn(db, actor, input);
  return claiming(db, actor, address, () =>
    db.transaction().execute(async (trx) => {
      // The user's row stays locked until commit, so concurrent adds count each other.
      const user = await lockUser(trx, actor.organizationId, input.userId);
      if (!user) throw notFound('User');
      if ((await countAliases(trx, actor.organizationId, user.id)) >= MAX_ALIASES_PER_USER) {
        throw conflict(`${user.email} has ${MAX_ALIASES_PER_USER} aliases, the most a user may have`);
      }
      const row = await insertAddress(trx, {
        organizationId: actor.organizationId,
        address,
        kind: 'alias',
        domainId: domain.id,
        userId: user.id,
      });
      await logMailChange(
        trx,
        actor,
        'mail.alias_added',
        { type: 'user', id: user.id, label: user.email },
        {
          address,
        },
      );
      return toAlias({
        ...row,
        user_id: user.id,
        email: user.email,
        first_name: user.first_name,
        last_name: user.last_name,
      });
    }),
  );
}

/** Removes an alias: mail to it is refused from the next message on. */
export async function removeAlias(db: Db, actor: Actor, aliasId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const removed = await deleteAlias(trx, actor.organizationId, aliasId);
    if (!removed) throw notFound('Alias');
    const owner = await lockUser(trx, actor.organizationId, removed.user_id!);
    await logMailChange(
      trx,
      actor,
      'mail.alias_removed',
      { type: 'user', id: removed.user_id!, label: owner?.email ?? removed.address },
      { address: removed.address },
    );
  });
}
