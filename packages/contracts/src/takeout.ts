import { z } from 'zod';

/**
 * Takeout (PRODUCT.md §4.13, docs/takeout.md): an organisation's admin exports everything of the
 * organisation — directory, apps without secrets, domains, mail settings, activity, mailboxes — as
 * one .tar.gz made by a background job; the download link expires.
 */

/** Days a finished archive can be downloaded; afterwards the link answers 410 and the file goes. */
export const TAKEOUT_DAYS = 7;

/**
 * Seconds a download link works, once: the console asks for one when the admin clicks Download,
 * for the admin's own session, and follows it at once (issue 38).
 */
export const TAKEOUT_LINK_SECONDS = 60;

export const takeoutStatusSchema = z.enum(['queued', 'running', 'done', 'failed']);
export type TakeoutStatus = z.infer<typeof takeoutStatusSchema>;

/** What the job is doing now: the directory and settings, the activity log, the mailboxes, packing. */
export const takeoutPhaseSchema = z.enum(['waiting', 'directory', 'activity', 'mailboxes', 'finished']);
export type TakeoutPhase = z.infer<typeof takeoutPhaseSchema>;

export const takeoutSchema = z.object({
  id: z.uuid(),
  status: takeoutStatusSchema,
  phase: takeoutPhaseSchema,
  /** Rows of the directory, settings and activity written so far. */
  rowsDone: z.number().int(),
  mailboxesTotal: z.number().int(),
  mailboxesDone: z.number().int(),
  messagesDone: z.number().int(),
  /** Bytes of the archive once done. */
  sizeBytes: z.number(),
  startedBy: z.string(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  /** When the download link stops working (finished archives only). */
  expiresAt: z.string().nullable(),
  /** True once expiresAt has passed: the archive is gone. */
  expired: z.boolean(),
  /** True while the archive can be downloaded (ask for a download link, then follow it). */
  downloadable: z.boolean(),
  error: z.string().nullable(),
});
export type Takeout = z.infer<typeof takeoutSchema>;

export const takeoutsSchema = z.object({ takeouts: z.array(takeoutSchema) });
export type Takeouts = z.infer<typeof takeoutsSchema>;

export const takeoutParamsSchema = z.object({ id: z.uuid('Not a valid export id') });

/** A one-time download link, for the session that asked, for TAKEOUT_LINK_SECONDS. */
export const takeoutDownloadLinkSchema = z.object({
  /** Relative: `/api/takeout/{id}/download?link=…`. */
  url: z.string(),
  expiresAt: z.string(),
});
export type TakeoutDownloadLink = z.infer<typeof takeoutDownloadLinkSchema>;

export const takeoutDownloadQuerySchema = z.object({
  link: z.string().max(200).optional(),
});
