import { z } from 'zod';

/**
 * A domain's DKIM keys on Mail Settings. Mail is signed with `selector`'s key. A rotation adds
 * `next` (published, not signing yet); switching makes it the signing key and keeps the old one
 * published as `previous` until the admin retires it.
 */
export const dkimStateSchema = z.object({
  selector: z.string(),
  next: z.object({ selector: z.string(), createdAt: z.string() }).nullable(),
  previous: z.object({ selector: z.string(), switchedAt: z.string() }).nullable(),
});
export type DkimState = z.infer<typeof dkimStateSchema>;

export const dkimDomainParamsSchema = z.object({ domainId: z.uuid('Unknown domain') });

export const dkimStateResponseSchema = z.object({ dkim: dkimStateSchema });
export type DkimStateResponse = z.infer<typeof dkimStateResponseSchema>;
