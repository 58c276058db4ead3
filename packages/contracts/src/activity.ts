import { z } from 'zod';

/** One entry of the organisation's activity log: who did what to which object, when and from where. */
export const activityEntrySchema = z.object({
  id: z.uuid(),
  /** Null when the system acted (background jobs). */
  actor: z.object({ userId: z.string().nullable(), label: z.string() }),
  /** Dotted, e.g. `domain.verified`; its first part is the kind. */
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable(), label: z.string().nullable() }).nullable(),
  ip: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.iso.datetime(),
});
export type ActivityEntry = z.infer<typeof activityEntrySchema>;

/** Kinds the filter offers; an action's kind is the part before its first dot. */
export const activityKinds = [
  { value: 'organization', label: 'Organisation' },
  { value: 'setup', label: 'Setup' },
  { value: 'domain', label: 'Domains' },
  { value: 'user', label: 'Users' },
  { value: 'group', label: 'Groups' },
  { value: 'app', label: 'Apps' },
  { value: 'subscription', label: 'Subscription' },
] as const;

/** 'system' filters the entries without a user actor. */
export const SYSTEM_ACTOR = 'system';
export const ACTIVITY_PAGE_MAX = 200;

const filterFields = z.object({
  actor: z.union([z.uuid({ message: 'Choose an actor from the list' }), z.literal(SYSTEM_ACTOR)]).optional(),
  kind: z
    .string()
    .max(100)
    .regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/, {
      message: 'A kind is lowercase words joined by dots, e.g. domain or domain.verified',
    })
    .optional(),
  from: z.iso.datetime({ offset: true, message: 'Not a date and time (ISO 8601)' }).optional(),
  to: z.iso.datetime({ offset: true, message: 'Not a date and time (ISO 8601)' }).optional(),
});

const rangeIsOrdered = (f: { from?: string | undefined; to?: string | undefined }) =>
  !f.from || !f.to || Date.parse(f.from) < Date.parse(f.to);
const rangeProblem = { message: 'The end of the date range must be after its start', path: ['to'] };

/** Filters shared by the list and the CSV export. `from` is inclusive, `to` exclusive. */
export const activityFilterSchema = filterFields.refine(rangeIsOrdered, rangeProblem);
export type ActivityFilter = z.infer<typeof activityFilterSchema>;

export const activityListQuerySchema = filterFields
  .extend({
    limit: z.coerce.number().int().min(1).max(ACTIVITY_PAGE_MAX).default(50),
    cursor: z.string().min(1).max(200).optional(),
  })
  .refine(rangeIsOrdered, rangeProblem);
export type ActivityListQuery = z.input<typeof activityListQuerySchema>;

export const activityListSchema = z.object({
  items: z.array(activityEntrySchema),
  nextCursor: z.string().nullable(),
});
export type ActivityList = z.infer<typeof activityListSchema>;

/** The people (and the system) that appear in the log, for the actor filter. */
export const activityActorsSchema = z.object({
  actors: z.array(z.object({ value: z.string(), label: z.string() })),
});
export type ActivityActors = z.infer<typeof activityActorsSchema>;
