import { z } from 'zod';

// Spam protection and sending limits (issue 44): what Mail Settings and the profile show and change.

export const SPAM_SENSITIVITIES = ['relaxed', 'standard', 'strict'] as const;
export type SpamSensitivity = (typeof SPAM_SENSITIVITIES)[number];

/**
 * rspamd's score thresholds of each level: over `junk` a message gets `X-Spam: Yes` and Sieve files
 * it in Junk; over `reject` it is refused at SMTP. Standard is rspamd's own default (6 and 15), the
 * base configuration's actions; the other two move both thresholds.
 */
export const SPAM_THRESHOLDS: Record<SpamSensitivity, { junk: number; reject: number }> = {
  relaxed: { junk: 9, reject: 20 },
  standard: { junk: 6, reject: 15 },
  strict: { junk: 4, reject: 10 },
};

export const spamSettingsSchema = z.object({
  sensitivity: z.enum(SPAM_SENSITIVITIES),
  /** First-time senders are told to try again later (4xx) once; on by default. */
  greylisting: z.boolean(),
});
export type SpamSettings = z.infer<typeof spamSettingsSchema>;

export const DEFAULT_SPAM_SETTINGS: SpamSettings = { sensitivity: 'standard', greylisting: true };

/** The plan's sending limits: recipients per hour (a message to 5 people counts 5). */
export const sendingLimitsSchema = z.object({
  perUserPerHour: z.number().int(),
  perOrganizationPerHour: z.number().int(),
});
export type SendingLimits = z.infer<typeof sendingLimitsSchema>;

export const mailProtectionResponse = z.object({
  spam: spamSettingsSchema,
  sendingLimits: sendingLimitsSchema,
});
export type MailProtectionResponse = z.infer<typeof mailProtectionResponse>;

export const SENDER_LISTS = ['allow', 'block'] as const;
export type SenderListName = (typeof SENDER_LISTS)[number];

export const SENDER_LIST_PAGE_SIZE = 50;
/** Entries per list: an organisation's, and each user's own. */
export const MAX_ORGANIZATION_SENDERS = 5000;
export const MAX_USER_SENDERS = 500;

const senderPattern = /^(?:[^@\s,:;<>"]+@)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** A sender's address (ann@example.com) or a whole domain (example.com), lowercased. */
export const senderValue = z
  .string({ message: 'Enter an address or a domain' })
  .trim()
  .toLowerCase()
  .max(254, 'At most 254 characters')
  .regex(senderPattern, 'Enter an address such as ann@example.com or a domain such as example.com');

export const senderListQuery = z.object({
  list: z.enum(SENDER_LISTS),
  /** The last value of the previous page. */
  cursor: z.string().max(400).optional(),
});

export const senderEntrySchema = z.object({
  id: z.uuid(),
  list: z.enum(SENDER_LISTS),
  value: z.string(),
  createdAt: z.string(),
});
export type SenderEntry = z.infer<typeof senderEntrySchema>;

export const senderListPage = z.object({
  entries: z.array(senderEntrySchema),
  nextCursor: z.string().nullable(),
});
export type SenderListPage = z.infer<typeof senderListPage>;

export const addSenderBody = z.object({ list: z.enum(SENDER_LISTS), value: senderValue });
export type AddSenderBody = z.infer<typeof addSenderBody>;

export const senderEntryParams = z.object({ entryId: z.uuid({ message: 'Not an entry id' }) });
