import type { DkimState } from '@atrium/contracts/mail-dkim';
import type { Config } from '../../../config.ts';
import type { Db, DbOrTrx } from '../../../db/database.ts';
import { conflict, notFound } from '../../../lib/errors.ts';
import { recordActivity } from '../../activity/activity.repository.ts';
import { generateDkimKey } from '../../domains/dkim.ts';
import { displayDomainName } from '../../domains/domain-name.ts';
import { findActor, findDomain, type DomainRow } from '../../domains/domains.repository.ts';
import type { Actor } from '../../organizations/actor.ts';
import * as repo from './dkim-rotation.repository.ts';
import { queueDkimTables } from './dkim-tables.job.ts';

export interface DkimRotationDeps {
  db: Db;
  config: Pick<Config, 'secret' | 'mail'>;
  /** Runs the tables job soon after a switch commits (the worker's wake). */
  wakeJobs: () => void;
}

export function dkimStateOf(row: DomainRow): DkimState {
  return {
    selector: row.dkim_selector,
    next:
      row.dkim_next_selector && row.dkim_next_created_at
        ? { selector: row.dkim_next_selector, createdAt: row.dkim_next_created_at.toISOString() }
        : null,
    previous:
      row.dkim_previous_selector && row.dkim_switched_at
        ? { selector: row.dkim_previous_selector, switchedAt: row.dkim_switched_at.toISOString() }
        : null,
  };
}

/** 'atrium' → 'atrium2' → 'atrium3': new, ordered, and never one the domain published before. */
export function nextSelector(current: string): string {
  const match = /^(.*?)(\d*)$/.exec(current)!;
  const n = match[2] ? Number(match[2]) : 1;
  return `${match[1]}${n + 1}`;
}

/** Step 1: a new key under a new selector, published beside the current one; mail is not signed with it yet. */
export async function createNextKey(
  deps: DkimRotationDeps,
  caller: Actor,
  domainId: string,
): Promise<DkimState> {
  const current = await mustFindVerified(deps.db, caller, domainId);
  assertNoRotation(current);
  // RSA generation takes a moment: outside the transaction; the guarded UPDATE settles races.
  const key = await generateDkimKey(deps.config.secret);
  return change(deps, caller, domainId, async (trx, row) => {
    assertNoRotation(row);
    const updated = await repo.setNextKey(trx, caller.organizationId, domainId, {
      selector: nextSelector(row.dkim_selector),
      privateKeyEnc: key.privateKeyEnc,
      publicKey: key.publicKey,
    });
    if (!updated) throw rotationInProgress(row);
    return {
      row: updated,
      action: 'domain.dkim_key_created',
      details: { selector: updated.dkim_next_selector },
    };
  });
}

/** Step 2: mail is signed with the next key from now on; the old one stays published. */
export async function switchToNextKey(
  deps: DkimRotationDeps,
  caller: Actor,
  domainId: string,
): Promise<DkimState> {
  const state = await change(deps, caller, domainId, async (trx, row) => {
    const updated = await repo.switchToNextKey(trx, caller.organizationId, domainId);
    if (!updated) {
      throw conflict(
        'There is no new DKIM key to switch to: create one first',
        undefined,
        'dkim_no_next_key',
      );
    }
    // OpenDKIM's tables must name the new key.
    await queueDkimTables(trx, deps.config);
    return {
      row: updated,
      action: 'domain.dkim_key_switched',
      details: { from: row.dkim_selector, to: updated.dkim_selector },
    };
  });
  deps.wakeJobs();
  return state;
}

/** Step 3: the old key is no longer published. */
export async function retirePreviousKey(
  deps: DkimRotationDeps,
  caller: Actor,
  domainId: string,
): Promise<DkimState> {
  return change(deps, caller, domainId, async (trx, row) => {
    const updated = await repo.retirePreviousKey(trx, caller.organizationId, domainId);
    if (!updated) throw conflict('There is no old DKIM key to retire', undefined, 'dkim_no_previous_key');
    return {
      row: updated,
      action: 'domain.dkim_key_retired',
      details: { selector: row.dkim_previous_selector },
    };
  });
}

/** A rotation abandoned before the switch: the new key is dropped (it never signed). */
export async function discardNextKey(
  deps: DkimRotationDeps,
  caller: Actor,
  domainId: string,
): Promise<DkimState> {
  return change(deps, caller, domainId, async (trx, row) => {
    const updated = await repo.discardNextKey(trx, caller.organizationId, domainId);
    if (!updated) throw conflict('There is no new DKIM key to discard', undefined, 'dkim_no_next_key');
    return {
      row: updated,
      action: 'domain.dkim_key_discarded',
      details: { selector: row.dkim_next_selector },
    };
  });
}

/** One change in one transaction, with the domain row locked and the activity recorded. */
async function change(
  deps: DkimRotationDeps,
  caller: Actor,
  domainId: string,
  apply: (
    trx: DbOrTrx,
    row: DomainRow,
  ) => Promise<{ row: DomainRow; action: string; details: Record<string, unknown> }>,
): Promise<DkimState> {
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await mustFindVerified(trx, caller, domainId, true);
    const outcome = await apply(trx, current);
    await recordActivity(trx, {
      organizationId: caller.organizationId,
      actor: await findActor(trx, caller.organizationId, caller.userId),
      action: outcome.action,
      target: { type: 'domain', id: domainId, label: displayDomainName(current.name) },
      ip: caller.ip,
      details: outcome.details,
    });
    return outcome.row;
  });
  return dkimStateOf(row);
}

async function mustFindVerified(db: DbOrTrx, caller: Actor, domainId: string, forUpdate = false) {
  const row = await findDomain(db, caller.organizationId, domainId, { forUpdate });
  if (!row) throw notFound('Domain');
  if (row.state !== 'verified') {
    throw conflict(
      `Verify ${displayDomainName(row.name)} first: its mail is signed once it is verified`,
      undefined,
      'domain_not_verified',
    );
  }
  return row;
}

function assertNoRotation(row: DomainRow): void {
  if (row.dkim_next_selector || row.dkim_previous_selector) throw rotationInProgress(row);
}

function rotationInProgress(row: DomainRow) {
  return row.dkim_next_selector
    ? conflict(
        `${displayDomainName(row.name)} already has a new DKIM key (${row.dkim_next_selector}): switch to it or discard it first`,
        undefined,
        'dkim_rotation_in_progress',
      )
    : conflict(
        `Retire the old DKIM key (${row.dkim_previous_selector ?? ''}) of ${displayDomainName(row.name)} first`,
        undefined,
        'dkim_rotation_in_progress',
      );
}
