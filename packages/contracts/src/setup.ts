import { z } from 'zod';
import { SETUP_PAGES, SETUP_STEPS } from './setup-steps.ts';

/**
 * The seed spec's setup-progress record, kept per organisation on the server:
 * currentPage/currentStep → `currentPage` and `currentStep`; stepValue → `done`/`skipped`;
 * previewProcess/nextProcess → `previousPage`/`nextPage`; showBottom → `showBottom`.
 *
 * Where the truth is in the data, the server judges a step from the data, not from the wizard:
 * `domain` is done while the organisation has a domain, `verify` while it has a verified one
 * (however it got verified, e.g. by the background re-check after "verify later"), `users`
 * while it has a user besides the one who signed up. `profile` and `apps` are done when the wizard says so.
 */
export const setupProgressSchema = z.object({
  /** The wizard's route, so "admin-setup login status" says where to land. */
  currentPage: z.string(),
  currentStep: z.enum(SETUP_PAGES),
  done: z.array(z.enum(SETUP_STEPS)),
  /**
   * Skipped in the wizard ("verify later", users skipped) and not done since: the wizard may go
   * past them, the dashboard's checklist still lists them.
   */
  skipped: z.array(z.enum(SETUP_STEPS)),
  previousPage: z.enum(SETUP_PAGES).nullable(),
  nextPage: z.enum(SETUP_PAGES).nullable(),
  /** Whether the wizard shows its bottom navigation (not on the finish page). */
  showBottom: z.boolean(),
  completed: z.boolean(),
  completedAt: z.string().nullable(),
});
export type SetupProgress = z.infer<typeof setupProgressSchema>;

export const setupMoveBodySchema = z.object({ currentStep: z.enum(SETUP_PAGES) });
export const setupStepParamsSchema = z.object({ step: z.enum(SETUP_STEPS) });
/**
 * `done` on a step judged from the data (domain, verify, users) only moves the wizard on: it is
 * refused with 409 {@link SETUP_STEP_NOT_DONE} while the data says otherwise (no domain, no
 * verified domain, no user besides the admins). `skipped` is a recorded choice (verify, users).
 */
export const setupStepBodySchema = z.object({ outcome: z.enum(['done', 'skipped']) });

/** Error code of marking a step done that the organisation's data says is not done. */
export const SETUP_STEP_NOT_DONE = 'setup_step_not_done';
