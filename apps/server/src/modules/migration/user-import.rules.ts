import { groupNameSchema } from '@atrium/contracts/groups';
import { hasUnstorableCharacter, replaceUnstorable, UNSTORABLE_MESSAGE } from '@atrium/contracts/text';
import {
  domainNameSchema,
  localPartSchema,
  noInvitationAddress,
  personalEmailSchema,
  personName,
} from '@atrium/contracts/users';
import type { EmailDomains } from '@atrium/contracts/users';
import type { DbOrTrx } from '../../db/database.ts';
import { passwordProblem } from '../../lib/passwords.ts';
import { hasUndecodedCharacter } from '../../lib/text-encoding.ts';
import { heldOtherThanByUsers } from '../mail/settings/mail-addresses.repository.ts';
import {
  domainsVerifiedElsewhere,
  emailDomainProblem,
  type EmailDomainProblem,
} from '../users/email-domains.ts';
import type { RawUserRow } from './csv-formats.ts';
import type { SeatCheck } from './seat-limit.ts';
import { groupIdsOfUsers, usersByEmail } from './user-import.repository.ts';

/**
 * The rules a row of a user file must pass, in two steps: those of the row alone (run as the file
 * is read, also by the upload) and those that ask the database, for a whole batch of rows at once
 * (run by the dry run and, again at the time of writing, by the import). The rules themselves are
 * the add-user form's and the groups page's (contracts, passwords, email-domains).
 */

export interface ValidRow {
  row: number;
  email: string;
  domain: string;
  firstName: string;
  lastName: string;
  /** Distinct ignoring case, in file order. */
  groups: string[];
  password: string;
  invite: boolean;
  /** Where the invitation goes; null: none in the file. */
  personalEmail: string | null;
}

export type RowCheck =
  { ok: true; value: ValidRow } | { ok: false; row: number; email: string; message: string };

const firstNameSchema = personName('first name');
const lastNameSchema = personName('last name');

const firstIssue = (error: { issues: Array<{ message: string }> }) => error.issues[0]!.message;
const EMPTY_NAME = { success: true as const, data: '' };
/** What the add-user form says of an empty name ("Enter the last name"). */
const emptyNameMessage = (schema: typeof firstNameSchema) => {
  const result = schema.safeParse('');
  return result.success ? '' : firstIssue(result.error);
};

/** The first column of the row with a cell that `test` finds, or undefined. */
function columnWhere(raw: RawUserRow, test: (value: string) => boolean): string | undefined {
  const cells: Array<[string, string[]]> = [
    ['E-mail', [raw.email]],
    ['First name', [raw.firstName]],
    ['Last name', [raw.lastName]],
    ['Groups', raw.groups],
    ['Password', [raw.password]],
    ['Personal email', [raw.personalEmail]],
  ];
  return cells.find(([, values]) => values.some(test))?.[0];
}

/**
 * Bytes the file's encoding cannot read (lib/text-encoding.ts shows them as U+FFFD): a file in
 * another encoding, or one whose encoding changes part-way. Imported, they would be names like
 * "Jos� M�ller" (issue 42 item 8).
 */
export const UNDECODED_MESSAGE =
  'The file is not UTF-8, UTF-16 or Windows-1252 text here (shown as �). ' +
  'Save it as “CSV UTF-8 (comma delimited)” and send that file';

/** The rules of one row by itself, and "a duplicate of an earlier row" (`seen`: e-mail → row). */
export function checkRow(raw: RawUserRow, seen: Map<string, number>): RowCheck {
  const fail = (message: string): RowCheck => ({
    ok: false,
    row: raw.row,
    email: replaceUnstorable(raw.email),
    message,
  });
  // A cell holding what no text column can store (a NUL; PostgreSQL refuses it), asked first.
  const unstorable = columnWhere(raw, hasUnstorableCharacter);
  if (unstorable) return fail(`${unstorable}: ${UNSTORABLE_MESSAGE}`);
  const undecoded = columnWhere(raw, hasUndecodedCharacter);
  if (undecoded) return fail(`${undecoded}: ${UNDECODED_MESSAGE}`);
  if (raw.problem) return fail(raw.problem);
  if (!raw.email) return fail('The e-mail address is missing');
  const at = raw.email.lastIndexOf('@');
  if (at <= 0) return fail(`“${raw.email}” is not an e-mail address`);
  const local = localPartSchema.safeParse(raw.email.slice(0, at));
  if (!local.success) return fail(`E-mail address: ${firstIssue(local.error)}`);
  const domain = domainNameSchema.safeParse(raw.email.slice(at + 1));
  if (!domain.success) return fail(`E-mail domain: ${firstIssue(domain.error)}`);
  const earlier = seen.get(raw.email);
  if (earlier !== undefined) return fail(`Duplicate row: the same e-mail address is on row ${earlier}`);
  seen.set(raw.email, raw.row);
  // An empty name is judged with the database (planBatch): an existing user keeps theirs.
  const first = raw.firstName.trim() ? firstNameSchema.safeParse(raw.firstName) : EMPTY_NAME;
  if (!first.success) return fail(firstIssue(first.error));
  const last = raw.lastName.trim() ? lastNameSchema.safeParse(raw.lastName) : EMPTY_NAME;
  if (!last.success) return fail(firstIssue(last.error));
  const groups = new Map<string, string>();
  for (const name of raw.groups) {
    const group = groupNameSchema.safeParse(name);
    if (!group.success) return fail(`Group “${name}”: ${firstIssue(group.error)}`);
    if (!groups.has(group.data.toLowerCase())) groups.set(group.data.toLowerCase(), group.data);
  }
  if (raw.password) {
    const problem = passwordProblem(raw.password);
    if (problem) return fail(`Password: ${problem}`);
  }
  const personal = personalEmailSchema.safeParse(raw.personalEmail);
  if (!personal.success) return fail(`Personal email: ${firstIssue(personal.error)}`);
  if (personal.data === raw.email) return fail(PERSONAL_IS_OWN);
  return {
    ok: true,
    value: {
      row: raw.row,
      email: raw.email,
      domain: domain.data,
      firstName: first.data,
      lastName: last.data,
      groups: [...groups.values()],
      password: raw.password,
      invite: raw.invite,
      personalEmail: personal.data,
    },
  };
}

export const PERSONAL_IS_OWN =
  'Personal email: this is the address being created here. Give an address of the person’s outside Atrium, or leave it empty';

const DOMAIN_MESSAGES: Record<EmailDomainProblem, (domain: string) => string> = {
  'verified-elsewhere': (d) => `Unknown domain: ${d} belongs to another organisation`,
  'no-verified-domain': () =>
    'Unknown domain: your organisation has no verified domain yet. Verify one on the Domains page first',
  'not-verified': (d) => `Unknown domain: ${d} is not one of your organisation’s verified domains`,
};

export const IN_USE_ELSEWHERE = 'This address is already in use in another organisation';
export const HELD_BY_MAIL =
  'This address is already an alias, a group’s address or otherwise in use for mail';

/** What importing a row would do. */
export type RowPlan =
  | { row: ValidRow; action: 'create'; groupKeys: string[] }
  | { row: ValidRow; action: 'update'; userId: string; namesChanged: boolean; groupKeys: string[] }
  | { row: ValidRow; action: 'unchanged'; userId: string }
  | { row: ValidRow; action: 'error'; message: string; overSeats?: true };

/** What stays the same for a whole import: the domains allowed, the groups known, the seats. */
export interface PlanContext {
  organizationId: string;
  allowed: EmailDomains;
  elsewhere: Map<string, boolean>;
  /** Lowercased name → id. */
  groups: Map<string, { id: string; name: string }>;
  seats: SeatCheck;
  /** New users planned so far in this run (for the seat check). */
  creates: number;
}

/** The database rules for a batch of rows: four queries whatever the batch size. */
export async function planBatch(db: DbOrTrx, ctx: PlanContext, rows: ValidRow[]): Promise<RowPlan[]> {
  const existing = new Map(
    (
      await usersByEmail(
        db,
        rows.map((r) => r.email),
      )
    ).map((u) => [u.email, u]),
  );
  const heldByMail = await heldOtherThanByUsers(
    db,
    rows.map((r) => r.email),
  );
  const ours = [...existing.values()].filter((u) => u.organization_id === ctx.organizationId);
  const membership = await groupIdsOfUsers(
    db,
    ctx.organizationId,
    ours.map((u) => u.id),
  );
  if (ctx.allowed.anyDomain) {
    const unknown = [...new Set(rows.filter((r) => !existing.has(r.email)).map((r) => r.domain))].filter(
      (d) => !ctx.elsewhere.has(d),
    );
    const taken = await domainsVerifiedElsewhere(db, ctx.organizationId, unknown);
    for (const d of unknown) ctx.elsewhere.set(d, taken.has(d));
  }

  return rows.map((fileRow): RowPlan => {
    let row = fileRow;
    const user = existing.get(row.email);
    const groupKeys = row.groups.map((g) => g.toLowerCase());
    if (user && user.organization_id !== ctx.organizationId) {
      return { row, action: 'error', message: IN_USE_ELSEWHERE };
    }
    if (user) {
      // An empty name in the file leaves the user's own (an organisation's first admin made by
      // the CLI may have no last name, and its users export says so: issue 30 item 7).
      row = { ...row, firstName: row.firstName || user.first_name, lastName: row.lastName || user.last_name };
      const namesChanged = user.first_name !== row.firstName || user.last_name !== row.lastName;
      const has = membership.get(user.id) ?? new Set<string>();
      const missing = groupKeys.filter((k) => {
        const group = ctx.groups.get(k);
        return !group || !has.has(group.id);
      });
      if (!namesChanged && missing.length === 0) return { row, action: 'unchanged', userId: user.id };
      return { row, action: 'update', userId: user.id, namesChanged, groupKeys: missing };
    }
    if (!row.firstName) return { row, action: 'error', message: emptyNameMessage(firstNameSchema) };
    if (!row.lastName) return { row, action: 'error', message: emptyNameMessage(lastNameSchema) };
    if (heldByMail.has(row.email)) return { row, action: 'error', message: HELD_BY_MAIL };
    const problem = emailDomainProblem(ctx.allowed, row.domain, ctx.elsewhere.get(row.domain) ?? false);
    if (problem) return { row, action: 'error', message: DOMAIN_MESSAGES[problem](row.domain) };
    // An invitation must reach the person: their own address does not while Atrium hosts its mail.
    if (row.invite && !row.password && !row.personalEmail && ctx.allowed.mailHosted.includes(row.domain)) {
      return { row, action: 'error', message: noInvitationAddress(row.email) };
    }
    const overSeats = ctx.seats(ctx.creates + 1);
    if (overSeats) return { row, action: 'error', message: overSeats, overSeats: true };
    ctx.creates++;
    return { row, action: 'create', groupKeys };
  });
}
