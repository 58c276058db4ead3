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
  /**
   * When Postfix (its socketmap lookups) and Dovecot (its dict lookups and writes) last asked
   * Atrium anything, recorded at most once a minute; null: never. Deployment-wide, like the servers.
   */
  mailServers: z.object({
    postfixLastAskedAt: z.string().nullable(),
    dovecotLastAskedAt: z.string().nullable(),
  }),
  domains: z.array(mailDomainSchema),
  checkedAt: z.string(),
});
export type MailDomainsResponse = z.infer<typeof mailDomainsResponse>;
