import { z } from 'zod';
import { hasUnstorableCharacter, UNSTORABLE_MESSAGE } from './text.ts';

/** A user's automatic reply while away (/profile, "Out of office"). */
export const OUT_OF_OFFICE_SUBJECT_MAX = 200;
export const OUT_OF_OFFICE_MESSAGE_MAX = 4000;

const day = (label: string) =>
  z
    .string({ message: `Choose the ${label}` })
    .regex(/^\d{4}-\d{2}-\d{2}$/, `Choose the ${label}`)
    .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), `Choose the ${label}`);

const storable = (schema: z.ZodString) =>
  schema.refine((value) => !hasUnstorableCharacter(value), { message: UNSTORABLE_MESSAGE });

export const outOfOfficeBody = z
  .object({
    enabled: z.boolean(),
    firstDay: day('first day'),
    lastDay: day('last day'),
    subject: storable(
      z
        .string()
        .trim()
        .max(OUT_OF_OFFICE_SUBJECT_MAX, `Use at most ${OUT_OF_OFFICE_SUBJECT_MAX} characters`)
        // A header's value: one line.
        .regex(/^[^\r\n]*$/, 'Write the subject on one line'),
    ),
    message: storable(
      z.string().trim().max(OUT_OF_OFFICE_MESSAGE_MAX, `Use at most ${OUT_OF_OFFICE_MESSAGE_MAX} characters`),
    ),
  })
  .superRefine((value, context) => {
    if (value.firstDay > value.lastDay)
      context.addIssue({
        code: 'custom',
        message: 'The last day is before the first day',
        path: ['lastDay'],
      });
    // Words are needed only to send them; switched off, a draft may be saved as it is.
    if (value.enabled && !value.subject)
      context.addIssue({ code: 'custom', message: 'Write a subject', path: ['subject'] });
    if (value.enabled && !value.message)
      context.addIssue({ code: 'custom', message: 'Write the message people get', path: ['message'] });
  });
export type OutOfOfficeBody = z.infer<typeof outOfOfficeBody>;

export const outOfOfficeView = z.object({
  enabled: z.boolean(),
  firstDay: z.string(),
  lastDay: z.string(),
  subject: z.string(),
  message: z.string(),
  /** Whether replies go out today (on, and today between the days). */
  activeNow: z.boolean(),
  /** null: never saved (the card shows defaults). */
  updatedAt: z.string().nullable(),
});
export type OutOfOfficeView = z.infer<typeof outOfOfficeView>;

export const outOfOfficeResponse = z.object({ outOfOffice: outOfOfficeView });
