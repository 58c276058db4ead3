import { z } from 'zod';
import { MAIL_SETUP_STEPS, SETUP_STEPS } from './setup-steps.ts';

export const recentActivityEntrySchema = z.object({
  id: z.string(),
  actorLabel: z.string(),
  action: z.string(),
  targetType: z.string().nullable(),
  targetLabel: z.string().nullable(),
  createdAt: z.string(),
});
export type RecentActivityEntry = z.infer<typeof recentActivityEntrySchema>;

export const dashboardSchema = z.object({
  setup: z.object({
    completed: z.boolean(),
    /**
     * Steps not done, skipped ones included: what the admin still has to do. Judged like the
     * setup progress's `done` (from the data where it lies there); empty without a wizard.
     */
    openSteps: z.array(z.enum(SETUP_STEPS)),
    /**
     * The mail steps, done or not, in order; empty while mail is not set up on the server or the
     * organisation has no verified domain. Setup is done only when `openSteps` is empty and every
     * one of these is done.
     */
    mailSteps: z.array(
      z.object({
        step: z.enum(MAIL_SETUP_STEPS),
        done: z.boolean(),
        /** What is missing or what was seen, e.g. "3 of 11 records are not published yet for example.com". */
        detail: z.string(),
        /** The domain whose records to publish next (its page); null when none is. */
        domainId: z.string().nullable(),
      }),
    ),
  }),
  counts: z.object({
    users: z.object({ total: z.number(), active: z.number(), invited: z.number(), suspended: z.number() }),
    domains: z.object({ total: z.number(), verified: z.number(), pending: z.number(), failed: z.number() }),
    groups: z.number(),
    apps: z.number(),
    /** Seats used (every user holds one) of seats bought (Subscriptions). */
    seats: z.object({ used: z.number(), bought: z.number() }),
  }),
  recentActivity: z.array(recentActivityEntrySchema),
});
export type Dashboard = z.infer<typeof dashboardSchema>;
export type MailSetupStepState = Dashboard['setup']['mailSteps'][number];
