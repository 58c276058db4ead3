import { z } from 'zod';
import { dnsMappingRecordSchema, domainSummarySchema } from './domains.ts';
import { dkimStateSchema } from './mail-dkim.ts';

/** One verified domain on Mail Settings: its mail records (MX, SPF, DKIM, DMARC) against DNS. */
export const mailDomainSchema = z.object({
  domain: domainSummarySchema,
  records: z.array(dnsMappingRecordSchema),
  /** Every mail record is published as expected. */
  ready: z.boolean(),
  /** Which key signs its mail, and any rotation in progress. */
  dkim: dkimStateSchema,
});
export type MailDomain = z.infer<typeof mailDomainSchema>;

export const mailDomainsResponse = z.object({
  /** Postfix and Dovecot are connected to this deployment (its lookup listeners are set up). */
  mailConfigured: z.boolean(),
  /** Where the domains' MX records point. */
  mailHost: z.string(),
  domains: z.array(mailDomainSchema),
  checkedAt: z.string(),
});
export type MailDomainsResponse = z.infer<typeof mailDomainsResponse>;
