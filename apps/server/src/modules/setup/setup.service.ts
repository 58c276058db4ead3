import { SETUP_STEP_NOT_DONE, type SetupProgress } from '@atrium/contracts/setup';
import {
  SETUP_PAGES,
  SETUP_STEPS,
  SETUP_STEP_TITLES,
  SKIPPABLE_STEPS,
  type SetupPage,
  type SetupStep,
} from '@atrium/contracts/setup-steps';
import type { Transaction } from 'kysely';
import type { Database, Db, DbOrTrx } from '../../db/database.ts';
import { AppError, conflict, fieldError } from '../../lib/errors.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { notifySetupStepsLeft } from '../notifications/notify.ts';
import {
  findSetupState,
  lockSetupRecord,
  saveSetupRecord,
  type SetupFacts,
  type SetupState,
} from './setup.repository.ts';

/** The console route of the wizard: "admin-setup login status" tells the console to land here. */
export const SETUP_PAGE_PATH = '/setup';

const pageIndex = (page: SetupPage) => SETUP_PAGES.indexOf(page);

/**
 * The steps whose truth is in the data, and what to tell an admin who says they are done while
 * the data says not. Judged on every read, so nothing has to be written when the data changes
 * (a domain verified by the background re-check after "verify later").
 */
const DATA_STEPS: Partial<Record<SetupStep, { isDone: (facts: SetupFacts) => boolean; missing: string }>> = {
  domain: { isDone: (facts) => facts.hasDomain, missing: 'Add a domain first.' },
  verify: {
    isDone: (facts) => facts.hasVerifiedDomain,
    missing: 'None of your domains is verified yet. Verify one, or choose “Verify later”.',
  },
  users: {
    isDone: (facts) => facts.hasUsers,
    missing: 'Add a user first, or skip this step for now.',
  },
};

function isDone(state: SetupState, step: SetupStep): boolean {
  const fromData = DATA_STEPS[step];
  return fromData ? fromData.isDone(state.facts) : state.done.includes(step);
}

/** Steps not done, skipped ones included: the dashboard's checklist and the admins' reminder. */
function openSteps(state: SetupState): SetupStep[] {
  return SETUP_STEPS.filter((step) => !isDone(state, step));
}

/** The first step neither done nor skipped: the wizard cannot go past it. */
function firstOpenStep(state: SetupState): SetupStep | undefined {
  return SETUP_STEPS.find((step) => !isDone(state, step) && !state.skipped.includes(step));
}

const titlesOf = (steps: SetupStep[]) => steps.map((step) => SETUP_STEP_TITLES[step]);

/** The seed spec's setup-progress record, from the stored row and the data. No row: nothing to set up. */
export function progressOf(state: SetupState | undefined): SetupProgress {
  if (!state) {
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
  const current = (SETUP_PAGES as readonly string[]).includes(state.currentStep)
    ? (state.currentStep as SetupPage)
    : 'profile';
  const index = pageIndex(current);
  return {
    currentPage: SETUP_PAGE_PATH,
    currentStep: current,
    done: SETUP_STEPS.filter((step) => isDone(state, step)),
    skipped: SETUP_STEPS.filter((step) => !isDone(state, step) && state.skipped.includes(step)),
    previousPage: index > 0 ? SETUP_PAGES[index - 1]! : null,
    nextPage: index < SETUP_PAGES.length - 1 ? SETUP_PAGES[index + 1]! : null,
    showBottom: current !== 'finish',
    completed: state.completedAt !== null,
    completedAt: state.completedAt?.toISOString() ?? null,
  };
}

export async function getProgress(db: Db, organizationId: string): Promise<SetupProgress> {
  return progressOf(await findSetupState(db, organizationId));
}

/** The dashboard's checklist: the open steps, in one query. No wizard: nothing open. */
export async function getChecklist(
  db: Db,
  organizationId: string,
): Promise<{ completed: boolean; openSteps: SetupStep[] }> {
  const state = await findSetupState(db, organizationId);
  if (!state) return { completed: true, openSteps: [] };
  return { completed: state.completedAt !== null, openSteps: openSteps(state) };
}

function assertReachable(state: SetupState, page: SetupPage): void {
  const open = firstOpenStep(state);
  if (open && pageIndex(page) > pageIndex(open)) {
    throw fieldError('currentStep', `Finish “${SETUP_STEP_TITLES[open]}” first`);
  }
}

/** Runs a change on the locked record; an organisation without one has no wizard. */
async function withRecord(
  db: Db,
  organizationId: string,
  apply: (state: SetupState) => SetupState,
  after?: (trx: Transaction<Database>, next: SetupState) => Promise<void>,
): Promise<SetupProgress> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockSetupRecord(trx, organizationId))) {
      throw new AppError(409, 'setup_not_applicable', 'This organisation has no setup to do.');
    }
    const next = apply((await findSetupState(trx, organizationId))!);
    await saveSetupRecord(trx, organizationId, {
      currentStep: next.currentStep,
      done: next.done,
      skipped: next.skipped,
      ...(next.completedAt && { completedAt: next.completedAt }),
    });
    if (after) await after(trx, next);
    return progressOf(next);
  });
}

/** Moves the wizard to a page (back, or forward as far as the first open step). */
export function moveTo(db: Db, organizationId: string, page: SetupPage): Promise<SetupProgress> {
  return withRecord(db, organizationId, (state) => {
    assertReachable(state, page);
    return { ...state, currentStep: page };
  });
}

/**
 * Marks a step done, or skipped ("verify later", no users yet), and moves to the next page.
 * "Done" on a step judged from the data is only checked, never stored: the data decides.
 */
export function markStep(
  db: Db,
  organizationId: string,
  step: SetupStep,
  outcome: 'done' | 'skipped',
): Promise<SetupProgress> {
  return withRecord(db, organizationId, (state) => {
    if (outcome === 'skipped' && !SKIPPABLE_STEPS.has(step)) {
      throw fieldError('outcome', `“${SETUP_STEP_TITLES[step]}” cannot be skipped`);
    }
    assertReachable(state, step);
    const fromData = DATA_STEPS[step];
    if (outcome === 'done' && fromData && !fromData.isDone(state.facts)) {
      throw conflict(fromData.missing, undefined, SETUP_STEP_NOT_DONE);
    }
    const done = state.done.filter((s) => s !== step);
    const skipped = state.skipped.filter((s) => s !== step);
    if (outcome === 'skipped') skipped.push(step);
    else if (!fromData) done.push(step);
    const ordered = (list: string[]) => SETUP_STEPS.filter((s) => list.includes(s));
    const next = SETUP_PAGES[pageIndex(step) + 1]!;
    return { ...state, done: ordered(done), skipped: ordered(skipped), currentStep: next };
  });
}

/** "admin-setup completion": every step done or skipped; afterwards the admin lands on /dashboard. */
export function completeSetup(
  db: Db,
  organizationId: string,
  actor: { userId: string; label: string },
): Promise<SetupProgress> {
  let alreadyDone = false;
  return withRecord(
    db,
    organizationId,
    (state) => {
      alreadyDone = state.completedAt !== null;
      const open = firstOpenStep(state);
      if (open) throw fieldError('currentStep', `Finish “${SETUP_STEP_TITLES[open]}” first`);
      return { ...state, currentStep: 'finish', completedAt: state.completedAt ?? new Date() };
    },
    async (trx, next) => {
      if (alreadyDone) return;
      await recordActivity(trx, {
        organizationId,
        actor,
        action: 'setup.completed',
        target: { type: 'organization', id: organizationId, label: 'Setup' },
      });
      // A skipped step ("verify later") stays on the admins' minds until it is done.
      await notifySetupStepsLeft(trx, { organizationId, stepsLeft: titlesOf(openSteps(next)) });
    },
  );
}

/**
 * Brings the admins' "setup steps left" reminder in line with the data. Call it inside the
 * transaction of a change that closes a step, e.g. an organisation's first domain verified
 * after "verify later". Before the wizard is finished there is no reminder to bring in line.
 */
export async function refreshSetupReminder(trx: DbOrTrx, organizationId: string): Promise<void> {
  // Locked like the wizard's changes, so a finish racing with this change cannot leave a reminder
  // that misses it: whichever commits second reads the other's work.
  if (!(await lockSetupRecord(trx, organizationId))) return;
  const state = await findSetupState(trx, organizationId);
  if (!state?.completedAt) return;
  await notifySetupStepsLeft(trx, { organizationId, stepsLeft: titlesOf(openSteps(state)) });
}
