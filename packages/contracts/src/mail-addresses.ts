import { z } from 'zod';
import { domainNameSchema, localPartSchema } from './users.ts';

// Mail Settings (issue 14): users' aliases, group addresses and each domain's catch-all.

/** How many aliases one user may have (Google Workspace allows 30 too). */
export const MAX_ALIASES_PER_USER = 30;
export const ALIASES_PAGE_SIZE = 50;

const userRef = z.object({ id: z.string(), name: z.string(), email: z.string() });

export const mailAliasSchema = z.object({
  id: z.string(),
  address: z.string(),
  user: userRef,
  createdAt: z.string(),
});
export type MailAlias = z.infer<typeof mailAliasSchema>;

export const mailAliasesQuery = z.object({
  /** The start of the alias address. */
  q: z.string().trim().max(254).optional(),
  cursor: z.string().max(400).optional(),
});

export const mailAliasesPage = z.object({
  aliases: z.array(mailAliasSchema),
  /** Null on the last page. */
  nextCursor: z.string().nullable(),
});
export type MailAliasesPage = z.infer<typeof mailAliasesPage>;

/** An address on one of the organisation's verified domains. */
export const mailAddressInput = z.object({ localPart: localPartSchema, domain: domainNameSchema });
export type MailAddressInput = z.infer<typeof mailAddressInput>;

export const addMailAliasBody = mailAddressInput.extend({
  userId: z.uuid({ message: 'Choose the user' }),
});
export type AddMailAliasBody = z.infer<typeof addMailAliasBody>;

export const mailAliasParams = z.object({ aliasId: z.uuid({ message: 'expected an alias id' }) });

export const groupAddressSchema = z.object({
  group: z.object({ id: z.string(), name: z.string(), memberCount: z.number() }),
  address: z.string(),
});
export type GroupAddress = z.infer<typeof groupAddressSchema>;
export const groupAddressesResponse = z.object({ groupAddresses: z.array(groupAddressSchema) });
export type GroupAddressesResponse = z.infer<typeof groupAddressesResponse>;
export const groupAddressParams = z.object({ groupId: z.uuid({ message: 'expected a group id' }) });

export const catchAllTargetSchema = z.object({
  type: z.enum(['user', 'group']),
  id: z.string(),
  /** The user's or group's name. */
  name: z.string(),
});
export type CatchAllTarget = z.infer<typeof catchAllTargetSchema>;

/** One verified domain and where mail to its unknown addresses goes (null: refused). */
export const domainCatchAllSchema = z.object({
  domainId: z.string(),
  domain: z.string(),
  catchAll: catchAllTargetSchema.nullable(),
});
export type DomainCatchAll = z.infer<typeof domainCatchAllSchema>;
export const catchAllsResponse = z.object({ domains: z.array(domainCatchAllSchema) });
export type CatchAllsResponse = z.infer<typeof catchAllsResponse>;
export const catchAllParams = z.object({ domainId: z.uuid({ message: 'expected a domain id' }) });
export const setCatchAllBody = z.object({
  type: z.enum(['user', 'group']),
  id: z.uuid({ message: 'Choose a user or a group' }),
});
export type SetCatchAllBody = z.infer<typeof setCatchAllBody>;
