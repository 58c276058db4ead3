import {
  DEFAULT_SPAM_SETTINGS,
  MAX_ORGANIZATION_SENDERS,
  MAX_USER_SENDERS,
  SENDER_LIST_PAGE_SIZE,
  type AddSenderBody,
  type MailProtectionResponse,
  type SenderEntry,
  type SenderListName,
  type SenderListPage,
  type SpamSettings,
} from '@atrium/contracts/mail-protection';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { conflict, fieldError, notFound } from '../../lib/errors.ts';
import type { Actor } from '../organizations/actor.ts';
import { logMailChange } from '../mail/settings/mail-addresses.service.ts';
import { planCatalogOf } from '../subscriptions/plan-catalog.ts';
import {
  countSenders,
  deleteSender,
  insertSender,
  listHolding,
  listSenders,
  lockOrganization,
  saveSpamSettings,
  spamSettingsOf,
  type ListOwner,
} from './sender-lists.repository.ts';
import { planKeyOf } from './sending-limits.repository.ts';

// Mail Settings' spam protection (admins, their organisation's) and each user's own allow and
// block lists (profile). rspamd reads both through the maps Atrium serves (rspamd-maps.routes.ts).

const LIST_WORDS: Record<SenderListName, string> = { allow: 'allowed senders', block: 'blocked senders' };

export async function getMailProtection(
  deps: { db: Db; config: Config },
  organizationId: string,
): Promise<MailProtectionResponse> {
  const [settings, planKey] = await Promise.all([
    spamSettingsOf(deps.db, organizationId),
    planKeyOf(deps.db, organizationId),
  ]);
  const plan = planCatalogOf(deps.config).planOf(planKey ?? '');
  return {
    spam: settings ?? DEFAULT_SPAM_SETTINGS,
    sendingLimits: {
      perUserPerHour: plan.sendPerUserPerHour,
      perOrganizationPerHour: plan.sendPerOrganizationPerHour,
    },
  };
}

export async function setSpamSettings(db: Db, actor: Actor, settings: SpamSettings): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await saveSpamSettings(trx, actor.organizationId, settings);
    await logMailChange(
      trx,
      actor,
      'mail.spam_settings_changed',
      { type: 'organization', id: actor.organizationId, label: 'Spam protection' },
      { ...settings },
    );
  });
}

const encodeCursor = (value: string) => Buffer.from(value).toString('base64url');
function decodeCursor(cursor: string): string {
  const value = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!value || value.length > 254) {
    throw fieldError('cursor', 'This page position is not valid; start again from the first page');
  }
  return value;
}

const toEntry = (row: {
  id: string;
  list: SenderListName;
  value: string;
  created_at: Date;
}): SenderEntry => ({
  id: row.id,
  list: row.list,
  value: row.value,
  createdAt: row.created_at.toISOString(),
});

export async function getSenders(
  db: Db,
  owner: ListOwner,
  query: { list: SenderListName; cursor?: string | undefined },
): Promise<SenderListPage> {
  const rows = await listSenders(db, owner, query.list, {
    after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
    limit: SENDER_LIST_PAGE_SIZE + 1,
  });
  const page = rows.slice(0, SENDER_LIST_PAGE_SIZE);
  return {
    entries: page.map(toEntry),
    nextCursor: rows.length > SENDER_LIST_PAGE_SIZE ? encodeCursor(page.at(-1)!.value) : null,
  };
}

/**
 * Puts a sender on the owner's allow or block list. A sender is on one of an owner's lists at
 * most: allowing a blocked sender is refused with where it is, rather than one list silently
 * winning over the other in rspamd.
 */
export async function addSender(
  db: Db,
  actor: Actor,
  owner: ListOwner,
  body: AddSenderBody,
): Promise<SenderEntry> {
  return db.transaction().execute(async (trx) => {
    await lockOrganization(trx, owner.organizationId);
    const max = owner.userId === null ? MAX_ORGANIZATION_SENDERS : MAX_USER_SENDERS;
    if ((await countSenders(trx, owner)) >= max) {
      throw conflict(`The lists hold ${max} senders, the most they may; remove some first`);
    }
    const holding = await listHolding(trx, owner, body.value);
    if (holding)
      throw fieldError('value', `${body.value} is already on the ${LIST_WORDS[holding]}`, 'conflict');
    const row = await insertSender(trx, owner, body.list, body.value);
    if (!row)
      throw fieldError('value', `${body.value} is already on the ${LIST_WORDS[body.list]}`, 'conflict');
    if (owner.userId === null) {
      await logMailChange(
        trx,
        actor,
        `mail.sender_${body.list === 'allow' ? 'allowed' : 'blocked'}`,
        { type: 'organization', id: owner.organizationId, label: body.value },
        { list: body.list, value: body.value },
      );
    }
    return toEntry({ ...row, list: body.list, value: body.value });
  });
}

export async function removeSender(db: Db, actor: Actor, owner: ListOwner, entryId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const removed = await deleteSender(trx, owner, entryId);
    if (!removed) throw notFound('Sender');
    if (owner.userId === null) {
      await logMailChange(
        trx,
        actor,
        'mail.sender_removed',
        { type: 'organization', id: owner.organizationId, label: removed.value },
        { ...removed },
      );
    }
  });
}
