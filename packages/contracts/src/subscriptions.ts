import { z } from 'zod';

/** Subscriptions: the operator's plans, the organisation's plan and seats (docs/subscriptions.md). */

export const SUBSCRIPTION_STATUSES = ['trial', 'active', 'past_due', 'cancelled'] as const;
export const subscriptionStatusSchema = z.enum(SUBSCRIPTION_STATUSES);
export type SubscriptionStatus = z.infer<typeof subscriptionStatusSchema>;

/**
 * Most seats anyone may buy in one request, whatever the plan (a typo guard), and the most a plan
 * of the catalog may name. Far above the 150,000 rows one user import takes (IMPORT_MAX_ROWS), so a
 * plan with no seat limit has room for such an import and more (issue 30 item 7).
 */
export const MAX_SEATS = 1_000_000;

export const planSchema = z.object({
  key: z.string(),
  title: z.string(),
  description: z.string(),
  /** The most seats an organisation on this plan may have; null: no limit. */
  seatLimit: z.number().nullable(),
  /** What a seat costs, as the operator words it ("$6 per user / month"); null: free. */
  pricePerSeat: z.string().nullable(),
  /** The mail plan: storage per mailbox, in MiB. */
  mailboxQuotaMb: z.number(),
  /** The plan's domains, or fewer where the server allows fewer (MAX_DOMAINS_PER_ORGANIZATION). */
  maxDomains: z.number(),
  /** Every app of the catalog, or only `appTemplates`. */
  allApps: z.boolean(),
  appTemplates: z.array(z.object({ key: z.string(), title: z.string() })),
  trialDays: z.number(),
});
export type Plan = z.infer<typeof planSchema>;

export const subscriptionSchema = z.object({
  plan: planSchema,
  status: subscriptionStatusSchema,
  seats: z.number(),
  /** Every user holds a seat: active, invited and suspended ones. */
  seatsUsed: z.number(),
  domainsUsed: z.number(),
  /** The plan's domains, or fewer where the server allows fewer (MAX_DOMAINS_PER_ORGANIZATION). */
  maxDomains: z.number(),
  trialEndsAt: z.string().nullable(),
  renewsAt: z.string().nullable(),
  updatedAt: z.string(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

export const subscriptionSourceSchema = z.enum(['console', 'operator', 'system']);

/** One change, as kept in the history: what it was before (null for the first) and after. */
export const subscriptionHistoryEntrySchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  actorLabel: z.string(),
  source: subscriptionSourceSchema,
  from: z.object({ planKey: z.string(), seats: z.number(), status: subscriptionStatusSchema }).nullable(),
  to: z.object({ planKey: z.string(), seats: z.number(), status: subscriptionStatusSchema }),
});
export type SubscriptionHistoryEntry = z.infer<typeof subscriptionHistoryEntrySchema>;

export const subscriptionResponseSchema = z.object({
  subscription: subscriptionSchema,
  /** Every plan of the operator's catalog, to change to. */
  plans: z.array(planSchema),
  /** Newest first; the most recent 50. */
  history: z.array(subscriptionHistoryEntrySchema),
});
export type SubscriptionResponse = z.infer<typeof subscriptionResponseSchema>;

export const changeSubscriptionBodySchema = z
  .object({
    planKey: z.string().trim().min(1, 'Choose a plan').max(40, 'Unknown plan'),
    seats: z
      .number({ message: 'Enter a number of seats' })
      .int('Enter a whole number of seats')
      .min(1, 'At least 1 seat')
      .max(MAX_SEATS, `At most ${MAX_SEATS} seats`),
  })
  .strict();
export type ChangeSubscriptionBody = z.infer<typeof changeSubscriptionBodySchema>;

/** The seed spec's "mail plan details". */
export const mailPlanSchema = z.object({
  planKey: z.string(),
  planTitle: z.string(),
  quotaPerMailboxMb: z.number(),
  /** Users who have a mailbox: every user of the organisation holds one. */
  mailboxes: z.number(),
  /** False while the operator has not connected a mail service: no usage to report. */
  mailConfigured: z.boolean(),
  usage: z.object({ usedMb: z.number(), quotaMb: z.number() }).nullable(),
});
export type MailPlan = z.infer<typeof mailPlanSchema>;
