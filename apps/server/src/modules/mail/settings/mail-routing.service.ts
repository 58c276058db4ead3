import type {
  CatchAllsResponse,
  GroupAddress,
  GroupAddressesResponse,
  MailAddressInput,
  SetCatchAllBody,
} from '@atrium/contracts/mail-addresses';
import type { Db } from '../../../db/database.ts';
import { fieldError, notFound } from '../../../lib/errors.ts';
import type { Actor } from '../../organizations/actor.ts';
import {
  deleteCatchAll,
  deleteGroupAddress,
  insertAddress,
  listCatchAlls,
  listGroupAddresses,
  lockGroup,
  lockUser,
  verifiedDomain,
} from './mail-addresses.repository.ts';
import { claiming, freeAddressOn, logMailChange } from './mail-addresses.service.ts';

// Group addresses (distribution lists) and catch-alls (Mail Settings). Where their mail goes is
// read from group_members at every delivery (mail-lookups.repository.ts), so a member removed
// from a group gets none of its mail from that moment on.

export async function getGroupAddresses(db: Db, actor: Actor): Promise<GroupAddressesResponse> {
  const rows = await listGroupAddresses(db, actor.organizationId);
  return {
    groupAddresses: rows.map((row) => ({
      group: { id: row.id, name: row.name, memberCount: Number(row.member_count ?? 0) },
      address: row.address,
    })),
  };
}

/** Gives a group its address, or a new one in place of the old. */
export async function setGroupAddress(
  db: Db,
  actor: Actor,
  groupId: string,
  input: MailAddressInput,
): Promise<GroupAddress> {
  const { address, domain } = await freeAddressOn(db, actor, input);
  return claiming(db, actor, address, () =>
    db.transaction().execute(async (trx) => {
      // One change of a group's address at a time (one address per group).
      const group = await lockGroup(trx, actor.organizationId, groupId);
      if (!group) throw notFound('Group');
      const previous = await deleteGroupAddress(trx, actor.organizationId, groupId);
      await insertAddress(trx, {
        organizationId: actor.organizationId,
        address,
        kind: 'group',
        domainId: domain.id,
        groupId,
      });
      await logMailChange(
        trx,
        actor,
        'mail.group_address_set',
        { type: 'group', id: group.id, label: group.name },
        { address, ...(previous ? { from: previous } : {}) },
      );
      const count = await trx
        .selectFrom('group_members')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('organization_id', '=', actor.organizationId)
        .where('group_id', '=', groupId)
        .executeTakeFirstOrThrow();
      return { group: { id: group.id, name: group.name, memberCount: Number(count.n) }, address };
    }),
  );
}

export async function removeGroupAddress(db: Db, actor: Actor, groupId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const group = await lockGroup(trx, actor.organizationId, groupId);
    if (!group) throw notFound('Group');
    const removed = await deleteGroupAddress(trx, actor.organizationId, groupId);
    if (!removed) throw notFound('Group address');
    await logMailChange(
      trx,
      actor,
      'mail.group_address_removed',
      { type: 'group', id: group.id, label: group.name },
      { address: removed },
    );
  });
}

export async function getCatchAlls(db: Db, actor: Actor): Promise<CatchAllsResponse> {
  const rows = await listCatchAlls(db, actor.organizationId);
  return {
    domains: rows.map((row) => ({
      domainId: row.domain_id,
      domain: row.domain,
      catchAll: row.user_id
        ? {
            type: 'user' as const,
            id: row.user_id,
            name: `${row.first_name ?? ''} ${row.last_name ?? ''}`.trim() || (row.email ?? ''),
          }
        : row.group_id
          ? { type: 'group' as const, id: row.group_id, name: row.group_name ?? '' }
          : null,
    })),
  };
}

/**
 * Sends mail to any address of the domain that nobody holds to one user or group. Addresses that
 * exist (mailboxes, aliases, group addresses) keep their mail.
 */
export async function setCatchAll(db: Db, actor: Actor, domainId: string, target: SetCatchAllBody) {
  const address = await db.transaction().execute(async (trx) => {
    // The domain's row is locked: one change of its catch-all at a time.
    const domain = await verifiedDomain(trx, actor.organizationId, { id: domainId }, true);
    if (!domain) throw notFound('Domain');
    const holder =
      target.type === 'user'
        ? await lockUser(trx, actor.organizationId, target.id)
        : await lockGroup(trx, actor.organizationId, target.id);
    if (!holder) throw fieldError('id', `That ${target.type} was not found in your organisation`);
    await deleteCatchAll(trx, actor.organizationId, domainId);
    const key = `@${domain.name}`;
    await claiming(db, actor, key, () =>
      insertAddress(trx, {
        organizationId: actor.organizationId,
        address: key,
        kind: 'catch_all',
        domainId,
        ...(target.type === 'user' ? { userId: target.id } : { groupId: target.id }),
      }),
    );
    const label = 'email' in holder ? holder.email : holder.name;
    await logMailChange(
      trx,
      actor,
      'mail.catch_all_set',
      { type: 'domain', id: domain.id, label: domain.name },
      {
        to: label,
        type: target.type,
      },
    );
    return key;
  });
  return address;
}

export async function removeCatchAll(db: Db, actor: Actor, domainId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const domain = await verifiedDomain(trx, actor.organizationId, { id: domainId }, true);
    if (!domain) throw notFound('Domain');
    if (!(await deleteCatchAll(trx, actor.organizationId, domainId))) throw notFound('Catch-all');
    await logMailChange(
      trx,
      actor,
      'mail.catch_all_removed',
      { type: 'domain', id: domain.id, label: domain.name },
      {},
    );
  });
}
