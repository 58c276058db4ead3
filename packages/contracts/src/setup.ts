import { z } from 'zod';

/**
 * The setup wizard's steps (PRODUCT.md §4.4), in order; `finish` is the last page, not a step
 * that can be done or skipped.
 */
export const SETUP_STEPS = ['profile', 'domain', 'verify', 'users', 'apps'] as const;
export type SetupStep = (typeof SETUP_STEPS)[number];
export const SETUP_PAGES = [...SETUP_STEPS, 'finish'] as const;
export type SetupPage = (typeof SETUP_PAGES)[number];

/** Steps that may be skipped: verify ("verify later") and add users. */
export const SKIPPABLE_STEPS: ReadonlySet<SetupStep> = new Set(['verify', 'users']);

export const SETUP_STEP_TITLES: Record<SetupPage, string> = {
  profile: 'Organisation profile',
  domain: 'Add a domain',
  verify: 'Verify your domain',
  users: 'Add users',
  apps: 'Choose apps',
  finish: 'Finish',
};

/**
 * The seed spec's setup-progress record, kept per organisation on the server (PRODUCT.md §9):
 * currentPage/currentStep → `currentPage` and `currentStep`; stepValue → `done`/`skipped`;
 * previewProcess/nextProcess → `previousPage`/`nextPage`; showBottom → `showBottom`.
 */
export const setupProgressSchema = z.object({
  /** The wizard's route, so "admin-setup login status" says where to land. */
  currentPage: z.string(),
  currentStep: z.enum(SETUP_PAGES),
  done: z.array(z.enum(SETUP_STEPS)),
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
export const setupStepBodySchema = z.object({ outcome: z.enum(['done', 'skipped']) });
