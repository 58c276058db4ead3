import {
  SETUP_PAGES,
  SETUP_STEPS,
  SETUP_STEP_TITLES,
  SKIPPABLE_STEPS,
  type SetupPage,
  type SetupProgress,
  type SetupStep,
} from '@atrium/contracts/setup';
import type { Transaction } from 'kysely';
import type { Database, Db } from '../../db/database.ts';
import { AppError, fieldError } from '../../lib/errors.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { notifySetupStepsLeft } from '../notifications/notify.ts';
import { findSetupRecord, lockSetupRecord, saveSetupRecord, type SetupRecord } from './setup.repository.ts';

/** The console route of the wizard: "admin-setup login status" tells the console to land here. */
export const SETUP_PAGE_PATH = '/setup';

const pageIndex = (page: SetupPage) => SETUP_PAGES.indexOf(page);
const isStep = (value: string): value is SetupStep => (SETUP_STEPS as readonly string[]).includes(value);

/** The seed spec's setup-progress record, from the stored row. No row: nothing to set up. */
export function progressOf(record: SetupRecord | undefined): SetupProgress {
  if (!record) {
    return {
      currentPage: SETUP_PAGE_PATH,
      currentStep: 'finish',
      done: [],
      skipped: [],
      previousPage: null,
      nextPage: null,
      showBottom: false,
      completed: true,
      completedAt: null,
    };
  }
  const current = (SETUP_PAGES as readonly string[]).includes(record.currentStep)
    ? (record.currentStep as SetupPage)
    : 'profile';
  const index = pageIndex(current);
  return {
    currentPage: SETUP_PAGE_PATH,
    currentStep: current,
    done: record.done.filter(isStep),
    skipped: record.skipped.filter(isStep),
    previousPage: index > 0 ? SETUP_PAGES[index - 1]! : null,
    nextPage: index < SETUP_PAGES.length - 1 ? SETUP_PAGES[index + 1]! : null,
    showBottom: current !== 'finish',
    completed: record.completedAt !== null,
    completedAt: record.completedAt?.toISOString() ?? null,
  };
}

export async function getProgress(db: Db, organizationId: string): Promise<SetupProgress> {
  return progressOf(await findSetupRecord(db, organizationId));
}

/** The first step neither done nor skipped: the wizard cannot go past it. */
function firstOpenStep(record: SetupRecord): SetupStep | undefined {
  return SETUP_STEPS.find((step) => !record.done.includes(step) && !record.skipped.includes(step));
}

function assertReachable(record: SetupRecord, page: SetupPage): void {
  const open = firstOpenStep(record);
  if (open && pageIndex(page) > pageIndex(open)) {
    throw fieldError('currentStep', `Finish “${SETUP_STEP_TITLES[open]}” first`);
  }
}

/** Runs a change on the locked record; an organisation without one has no wizard. */
async function withRecord(
  db: Db,
  organizationId: string,
  apply: (record: SetupRecord) => SetupRecord,
  after?: (trx: Transaction<Database>) => Promise<void>,
): Promise<SetupProgress> {
  return db.transaction().execute(async (trx) => {
    const record = await lockSetupRecord(trx, organizationId);
    if (!record) throw new AppError(409, 'setup_not_applicable', 'This organisation has no setup to do.');
    const next = apply(record);
    await saveSetupRecord(trx, organizationId, {
      currentStep: next.currentStep,
      done: next.done,
      skipped: next.skipped,
      ...(next.completedAt && { completedAt: next.completedAt }),
    });
    if (after) await after(trx);
    return progressOf(next);
  });
}

/** Moves the wizard to a page (back, or forward as far as the first open step). */
export function moveTo(db: Db, organizationId: string, page: SetupPage): Promise<SetupProgress> {
  return withRecord(db, organizationId, (record) => {
    assertReachable(record, page);
    return { ...record, currentStep: page };
  });
}

/** Marks a step done, or skipped ("verify later", no users yet), and moves to the next page. */
export function markStep(
  db: Db,
  organizationId: string,
  step: SetupStep,
  outcome: 'done' | 'skipped',
): Promise<SetupProgress> {
  return withRecord(db, organizationId, (record) => {
    if (outcome === 'skipped' && !SKIPPABLE_STEPS.has(step)) {
      throw fieldError('outcome', `“${SETUP_STEP_TITLES[step]}” cannot be skipped`);
    }
    assertReachable(record, step);
    const done = record.done.filter((s) => s !== step);
    const skipped = record.skipped.filter((s) => s !== step);
    if (outcome === 'done') done.push(step);
    else skipped.push(step);
    const ordered = (list: string[]) => SETUP_STEPS.filter((s) => list.includes(s));
    const next = SETUP_PAGES[pageIndex(step) + 1]!;
    return { ...record, done: ordered(done), skipped: ordered(skipped), currentStep: next };
  });
}

/** "admin-setup completion": every step done or skipped; afterwards the admin lands on /dashboard. */
export function completeSetup(
  db: Db,
  organizationId: string,
  actor: { userId: string; label: string },
): Promise<SetupProgress> {
  let alreadyDone = false;
  let skipped: string[] = [];
  return withRecord(
    db,
    organizationId,
    (record) => {
      alreadyDone = record.completedAt !== null;
      skipped = record.skipped;
      const open = firstOpenStep(record);
      if (open) throw fieldError('currentStep', `Finish “${SETUP_STEP_TITLES[open]}” first`);
      return { ...record, currentStep: 'finish', completedAt: record.completedAt ?? new Date() };
    },
    async (trx) => {
      if (alreadyDone) return;
      await recordActivity(trx, {
        organizationId,
        actor,
        action: 'setup.completed',
        target: { type: 'organization', id: organizationId, label: 'Setup' },
      });
      // A skipped step ("verify later") stays on the admins' minds until it is done.
      await notifySetupStepsLeft(trx, {
        organizationId,
        stepsLeft: SETUP_STEPS.filter((step) => skipped.includes(step)).map(
          (step) => SETUP_STEP_TITLES[step],
        ),
      });
    },
  );
}
