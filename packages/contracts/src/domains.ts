import { z } from 'zod';

/** Domains: add, verify with a DNS TXT record, DNS mapping, delete. */

/** The TXT value at the apex is `atrium-verification=<token>`. */
export const DOMAIN_VERIFICATION_PREFIX = 'atrium-verification=';
/** The DKIM record lives at `<selector>._domainkey.<domain>`. */
export const DKIM_SELECTOR = 'atrium';
/** The CNAME `<label>.<domain>` points at the organisation's site. */
export const DOMAIN_SITE_LABEL = 'apps';
/** Pending domains are re-checked in the background for this long after they are added. */
export const DOMAIN_RECHECK_DAYS = 7;

export const domainStateSchema = z.enum(['pending', 'verified', 'failed']);
export type DomainState = z.infer<typeof domainStateSchema>;

export const domainIdParamsSchema = z.object({ id: z.uuid('Unknown domain') });

/**
 * The form's only field. The full rules (labels, length, IP addresses, punycode, the
 * deployment's own base domain) need IDNA, so the server checks them and answers per field.
 */
export const addDomainBodySchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Enter a domain name, such as example.com')
    .max(1000, 'A domain name can be at most 253 characters'),
});
export type AddDomainBody = z.infer<typeof addDomainBodySchema>;

/** How a verification check ended; each outcome is shown differently. */
export const verificationOutcomeSchema = z.enum(['verified', 'no_record', 'mismatch', 'lookup_failed']);
export type VerificationOutcome = z.infer<typeof verificationOutcomeSchema>;

/** Why a lookup failed, when it did. */
export const lookupFailureSchema = z.enum(['timeout', 'server_failure', 'refused', 'other']);
export type LookupFailure = z.infer<typeof lookupFailureSchema>;

export const verificationCheckSchema = z.object({
  outcome: verificationOutcomeSchema,
  message: z.string(),
  /** TXT values found at the apex (for `mismatch`). */
  found: z.array(z.string()),
  failure: lookupFailureSchema.nullable(),
  checkedAt: z.string(),
});
export type VerificationCheck = z.infer<typeof verificationCheckSchema>;

export const dnsRecordTypeSchema = z.enum(['TXT', 'MX', 'CNAME', 'SRV']);

/** A record to publish: where, which type, what value. */
export const dnsRecordSchema = z.object({
  /** Fully qualified, ASCII. */
  host: z.string(),
  type: dnsRecordTypeSchema,
  value: z.string(),
});
export type DnsRecord = z.infer<typeof dnsRecordSchema>;

export const domainSummarySchema = z.object({
  id: z.uuid(),
  /** ASCII (punycode), as stored and as DNS knows it. */
  name: z.string(),
  /** The same name in Unicode, for people. */
  displayName: z.string(),
  state: domainStateSchema,
  isPrimary: z.boolean(),
  createdAt: z.string(),
  verifiedAt: z.string().nullable(),
  lastCheckedAt: z.string().nullable(),
  lastCheck: verificationCheckSchema.nullable(),
});
export type DomainSummary = z.infer<typeof domainSummarySchema>;

export const domainDetailSchema = domainSummarySchema.extend({
  verificationRecord: dnsRecordSchema,
  /** Background checks stop at this time if the domain is still pending. */
  recheckUntil: z.string(),
});
export type DomainDetail = z.infer<typeof domainDetailSchema>;

export const domainListSchema = z.object({
  domains: z.array(domainSummarySchema),
  /** The operator's per-organisation limit (MAX_DOMAINS_PER_ORGANIZATION). */
  limit: z.number(),
});
export type DomainList = z.infer<typeof domainListSchema>;

export const domainResponseSchema = z.object({ domain: domainDetailSchema });
export type DomainResponse = z.infer<typeof domainResponseSchema>;

export const verifyDomainResponseSchema = z.object({
  domain: domainDetailSchema,
  check: verificationCheckSchema,
});
export type VerifyDomainResponse = z.infer<typeof verifyDomainResponseSchema>;

/**
 * `does_not_pass`: the record is published, but a receiver's SPF check of mail from the mail host
 * does not pass (e.g. `permerror` when the mail host publishes no SPF record of its own).
 */
export const mappingStatusSchema = z.enum(['ok', 'missing', 'different', 'lookup_failed', 'does_not_pass']);
export type MappingStatus = z.infer<typeof mappingStatusSchema>;

export const mappingPurposeSchema = z.enum([
  'mx',
  'spf',
  'dkim',
  'dmarc',
  'site',
  // Devices find their servers from the address alone (docs/devices.md): RFC 6186 and 6764 SRV
  // records, and the names Thunderbird and Outlook ask first.
  'imaps',
  'submission',
  'caldavs',
  'carddavs',
  'autoconfig',
  'autodiscover',
  // MTA-STS (RFC 8461) and TLS reporting (RFC 8460): mail to the domain only over verified TLS.
  'mta_sts',
  'mta_sts_host',
  'tls_reports',
]);
export type MappingPurpose = z.infer<typeof mappingPurposeSchema>;

export const dnsMappingRecordSchema = dnsRecordSchema.extend({
  purpose: mappingPurposeSchema,
  /**
   * The value as DNS stores it: one string for most records, several for a TXT value longer than
   * 255 bytes (a TXT string holds at most 255; many DNS panels want a long value entered split).
   */
  valueStrings: z.array(z.string()),
  status: mappingStatusSchema,
  /** What DNS holds now at that host for that type (empty when missing). */
  found: z.array(z.string()),
  /**
   * What is wrong, in words, when the status alone does not say: which lookup failed, or for SPF
   * the result a receiver's check gives mail from the mail host and why.
   */
  problem: z.string().nullable(),
  /**
   * The record to publish when it is another host's than this one (SPF: the mail host's own
   * record, which the mail service's operator publishes); null when publishing `value` at `host`
   * is the fix.
   */
  fix: dnsRecordSchema.nullable(),
});
export type DnsMappingRecord = z.infer<typeof dnsMappingRecordSchema>;

export const dnsMappingSchema = z.object({
  domain: domainSummarySchema,
  records: z.array(dnsMappingRecordSchema),
  checkedAt: z.string(),
});
export type DnsMapping = z.infer<typeof dnsMappingSchema>;

export const deletionBlockerSchema = z.enum(['users', 'primary']);

export const deletionCheckSchema = z.object({
  allowed: z.boolean(),
  /** Why it is refused, in words; empty when allowed. */
  reasons: z.array(z.object({ code: deletionBlockerSchema, message: z.string() })),
  /** Users whose e-mail address is on this domain (the first 50, by e-mail). */
  users: z.array(z.object({ id: z.uuid(), name: z.string(), email: z.string() })),
  userCount: z.number(),
});
export type DeletionCheck = z.infer<typeof deletionCheckSchema>;

/**
 * The DNS mapping as a BIND zone-file fragment (`GET /api/domains/:id/zone-file`): `$ORIGIN`, one
 * line per record, this TTL, long TXT values as several quoted strings of at most 255 bytes.
 */
export const ZONE_FILE_TTL = 3600;
/** The zone file's media type (RFC 4027). */
export const ZONE_FILE_MEDIA_TYPE = 'text/dns';
/** The downloaded file's name: `<domain>.zone` (the ASCII name). */
export const zoneFileName = (domain: string) => `${domain}.zone`;

export const proxyHostQuerySchema = z.object({
  domain: z.string().trim().min(1, 'Give the host name as ?domain=').max(300, 'Host name too long'),
});
export const proxyHostResponseSchema = z.object({ host: z.string() });
