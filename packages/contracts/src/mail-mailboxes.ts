import { z } from 'zod';

// Mail Settings' mail plan (issue 14, item 5): each mailbox's quota and what it uses, as
// Dovecot's quota_clone last reported it.

export const MAILBOXES_PAGE_SIZE = 50;

export const mailboxesQuery = z.object({
  cursor: z.string().max(400).optional(),
});

export const mailboxSchema = z.object({
  userId: z.string(),
  name: z.string(),
  email: z.string(),
  status: z.enum(['active', 'suspended', 'invited']),
  quotaBytes: z.number(),
  /** Null until Dovecot has reported this mailbox (nothing delivered or opened yet). */
  usedBytes: z.number().nullable(),
  messages: z.number().nullable(),
  /** When Dovecot last reported the usage. */
  updatedAt: z.string().nullable(),
});
export type Mailbox = z.infer<typeof mailboxSchema>;

export const mailboxesPage = z.object({
  /** The plan's quota of every mailbox. */
  quotaPerMailboxMb: z.number(),
  /** In address order. */
  mailboxes: z.array(mailboxSchema),
  /** Null on the last page. */
  nextCursor: z.string().nullable(),
});
export type MailboxesPage = z.infer<typeof mailboxesPage>;
