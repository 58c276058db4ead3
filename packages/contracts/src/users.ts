import { z } from 'zod';
import { newPasswordField } from './credentials.ts';
import { labelText } from './text.ts';

/** Users list and user management. Shared by the server routes and the console forms. */

export const USERS_PAGE_SIZE = 50;
/** Invitation and admin-sent reset links live this long. */
export const SET_PASSWORD_LINK_HOURS = 72;

export const userStatusSchema = z.enum(['active', 'suspended', 'invited']);
export type UserStatus = z.infer<typeof userStatusSchema>;

export const userSortSchema = z.enum(['name', 'email', 'lastSignIn', 'created']);
export type UserSort = z.infer<typeof userSortSchema>;
export const sortDirectionSchema = z.enum(['asc', 'desc']);
export type SortDirection = z.infer<typeof sortDirectionSchema>;

export const listUsersQuerySchema = z.object({
  q: z.string().trim().max(200, 'Use at most 200 characters').optional(),
  status: userStatusSchema.optional(),
  sort: userSortSchema.default('name'),
  dir: sortDirectionSchema.default('asc'),
  /** Opaque: the `nextCursor` of the previous page. */
  cursor: z.string().max(500).optional(),
});
export type ListUsersQuery = z.input<typeof listUsersQuerySchema>;

export const exportUsersQuerySchema = listUsersQuerySchema.omit({ cursor: true });

export const groupRefSchema = z.object({ id: z.uuid(), name: z.string(), isSystem: z.boolean() });
export type GroupRef = z.infer<typeof groupRefSchema>;

export const userSummarySchema = z.object({
  id: z.uuid(),
  firstName: z.string(),
  lastName: z.string(),
  name: z.string(),
  email: z.string(),
  status: userStatusSchema,
  groups: z.array(groupRefSchema),
  lastSignInAt: z.string().nullable(),
  createdAt: z.string(),
});
export type UserSummary = z.infer<typeof userSummarySchema>;

export const usersPageSchema = z.object({
  users: z.array(userSummarySchema),
  /** Null on the last page. */
  nextCursor: z.string().nullable(),
  /** How many users match the search and status: counted with the first page, null on the others. */
  total: z.number().int().nullable(),
});
export type UsersPage = z.infer<typeof usersPageSchema>;

/** A first or last name (the add-user form, the CSV import). */
export const personName = (label: string) =>
  labelText(
    z.string().trim().min(1, `Enter the ${label}`).max(100, `Use at most 100 characters for the ${label}`),
  );

/** The part before "@": dot-atom characters of RFC 5322, no leading, trailing or double dot. */
export const localPartSchema = z
  .string()
  .trim()
  .min(1, 'Enter the part of the address before the @')
  .max(64, 'Use at most 64 characters before the @')
  .regex(
    /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/,
    'Use letters, digits and . _ - + only, with no dot at the start or end or two dots in a row',
  );

export const domainNameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, 'Choose a domain')
  .max(253, 'Use at most 253 characters')
  .regex(/^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/, 'Enter a domain such as example.com');

/**
 * A personal (secondary) address of the person, outside Atrium: where their invitation goes, since
 * their Atrium mailbox cannot be opened before they set a password (issue 42 item 1). Empty: none.
 */
export const personalEmailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'Use at most 254 characters')
  .pipe(z.union([z.literal(''), z.email('Enter an address such as ann@example.org')]))
  .transform((value) => (value === '' ? null : value));

export const addUserSchema = z
  .object({
    firstName: personName('first name'),
    lastName: personName('last name'),
    localPart: localPartSchema,
    domain: domainNameSchema,
    groupIds: z.array(z.uuid()).max(100).default([]),
    /** `password`: the admin sets the first password; `invitation`: the user gets a set-password link. */
    credential: z.enum(['password', 'invitation']),
    password: z.string().max(256, 'Use at most 256 characters').optional(),
    /** Where the invitation goes; optional (the user's own address when Atrium does not host its mail). */
    personalEmail: personalEmailSchema.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.credential !== 'password') return;
    const problem = newPasswordField.safeParse(value.password ?? '');
    if (!problem.success) {
      ctx.addIssue({ code: 'custom', path: ['password'], message: problem.error.issues[0]!.message });
    }
  });
export type AddUserInput = z.input<typeof addUserSchema>;

/** Which domains the add-user form offers. `anyDomain`: evaluation installs may type any domain. */
export const emailDomainsSchema = z.object({
  domains: z.array(z.string()),
  anyDomain: z.boolean(),
  /**
   * Those of `domains` whose mail Atrium hosts: an invited user's address there reaches only a
   * mailbox they cannot open before they set a password, so an invitation needs a personal address.
   */
  mailHosted: z.array(z.string()),
});
export type EmailDomains = z.infer<typeof emailDomainsSchema>;

/**
 * Why an invitation cannot be e-mailed: the user's own address has no mailbox they can open yet
 * (Atrium hosts its mail) and no personal address is given. The add-user form says it too.
 */
export const noInvitationAddress = (email: string) =>
  `${email} has no mailbox until the person signs in, and no personal address is given: add one or set a password`;

export const createdUserSchema = z.object({
  user: userSummarySchema,
  /** True when the user was invited by e-mail instead of getting a password. */
  invited: z.boolean(),
  /** False when the invitation could not be handed to the mail server; it can be re-sent. */
  mailSent: z.boolean(),
  /** Where the invitation went (the personal address, or the user's own); null without one. */
  invitationSentTo: z.string().nullable(),
});
export type CreatedUser = z.infer<typeof createdUserSchema>;

export const updateUserSchema = z.object({
  firstName: personName('first name'),
  lastName: personName('last name'),
  /** Absent: unchanged; empty: removed. */
  personalEmail: personalEmailSchema.optional(),
});
export type UpdateUserInput = z.input<typeof updateUserSchema>;

export const setPasswordSchema = z.object({ password: newPasswordField });
export type SetPasswordInput = z.infer<typeof setPasswordSchema>;

export const sessionSchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  expiresAt: z.string(),
  userAgent: z.string().nullable(),
  /** The user agent in plain words ("Chrome on Linux"), as the user's own profile says it. */
  browser: z.string(),
  ip: z.string().nullable(),
});
export type UserSession = z.infer<typeof sessionSchema>;

export const appRefSchema = z.object({ id: z.string(), name: z.string() });

export const userDetailSchema = userSummarySchema.extend({
  /** Where invitations go (personalEmailSchema); null: none given. */
  personalEmail: z.string().nullable(),
  passwordChangedAt: z.string().nullable(),
  /** The pending set-password link (invitation or admin-sent reset), if any. */
  pendingLink: z.object({ purpose: z.enum(['invite', 'reset']), expiresAt: z.string() }).nullable(),
  isSelf: z.boolean(),
  sessions: z.array(sessionSchema),
  /** The apps this user may open (apps open to everyone or to one of their groups). */
  apps: z.array(appRefSchema),
});
export type UserDetail = z.infer<typeof userDetailSchema>;

export const userIdParamsSchema = z.object({ id: z.uuid('Not a valid user id') });
export const userSessionParamsSchema = userIdParamsSchema.extend({ sessionId: z.string().min(1).max(100) });

export const okSchema = z.object({ ok: z.literal(true) });
