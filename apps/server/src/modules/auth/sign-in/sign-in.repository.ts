import type { SignInPolicy } from '@atrium/contracts/sign-in-policy';
import { sql } from 'kysely';
import type { Db, DbOrTrx } from '../../../db/database.ts';
import {
  insertClaimedJob,
  jobFromJson,
  type ClaimHere,
  type Job,
  type NewJob,
} from '../../jobs/jobs.repository.ts';
import type { NoticeRecipient } from '../../notifications/notice-mail.ts';
import type { CodeRecipient } from './codes/auth-mail.ts';
import {
  latestCode,
  openCode,
  toLatestCode,
  type LatestCode,
  type LatestCodeRow,
  type OpenCode,
} from './codes/email-codes.ts';
import { liveProgress, type SignInProgress } from './sign-in-progress.ts';
import { isAdminOf, toPolicyOfUser, type PolicyOfUser } from '../policy/sign-in-policy.repository.ts';
import { strongFactorColumns, type StrongFactors } from '../factors/strong-factors.ts';
import { clearedBy, failureCounts, type FailureCounts } from './throttle.ts';

/** The account a password step names, with everything the step goes on to need. */
export interface PasswordStepAccount {
  id: string;
  passwordHash: string | null;
  status: string;
  recipient: CodeRecipient;
  has: StrongFactors;
  policy: PolicyOfUser;
}

/**
 * What the password step reads, in one statement (issue 18: it was six, one after another): the
 * identifier's recent failures, and the account by that address if there is one, with its
 * organisation's name (for the code's e-mail), its strong factors and its organisation's policy.
 * Reading the factors before the password is checked reveals nothing: they are only used after.
 */
export async function findPasswordStepAccount(
  db: Db,
  /** `deviceHash`: the sha256 of the browser's device cookie, if it sent one (throttle.ts). */
  input: { identifier: string; ip: string; context: string; deviceHash: string | null },
): Promise<{
  failures: FailureCounts;
  account: PasswordStepAccount | undefined;
  /** This sign-in's latest code (going back to the password step reuses it). */
  latest: LatestCode | undefined;
}> {
  const { identifier, ip, context, deviceHash } = input;
  const { rows } = await sql<
    FailureCounts & {
      id: string | null;
      password_hash: string | null;
      status: string;
      email: string;
      organization_id: string;
      organization_name: string;
      passkey: boolean;
      totp: boolean;
      is_admin: boolean;
      strong_factor_required: SignInPolicy['strongFactorRequired'] | null;
      email_code_allowed: boolean | null;
      trusted_browsers_allowed: boolean | null;
      latest: LatestCodeRow | null;
    }
  >`
    select f.*, u.id, u.password_hash, u.status, u.email, u.organization_id, o.name as organization_name,
      ${strongFactorColumns(sql.ref('u.id'))}, ${isAdminOf(sql.ref('u.id'))} as is_admin,
      p.strong_factor_required, p.email_code_allowed, p.trusted_browsers_allowed,
      (select to_jsonb(l) from (${latestCode({ purpose: 'sign-in', context })}) l) as latest
    from (${failureCounts(identifier, ip, deviceHash)}) f
    left join (users u join organizations o on o.id = u.organization_id) on u.email = ${identifier}
    left join sign_in_policies p on p.organization_id = u.organization_id`.execute(db);
  const row = rows[0]!;
  const failures = {
    ipCount: row.ipCount,
    ipLast: row.ipLast,
    allCount: row.allCount,
    allLast: row.allLast,
    now: row.now,
    knownDevice: row.knownDevice,
  };
  const latest = row.latest ? latestFromJson(row.latest) : undefined;
  if (!row.id) return { failures, account: undefined, latest };
  return {
    failures,
    latest,
    account: {
      id: row.id,
      passwordHash: row.password_hash,
      status: row.status,
      recipient: { email: row.email, organizationName: row.organization_name },
      has: { passkey: row.passkey, totp: row.totp },
      policy: toPolicyOfUser({ ...row, id: row.id }),
    },
  };
}

/** A completed sign-in as `recordCompletedSignIn` wrote it. */
export interface CompletedSignIn {
  /** False when the e-mail code it was to use up had been used meanwhile: then nothing is written. */
  codeUsed: boolean;
  /** The account, unless it is no longer active (then nothing but the code is written). */
  user:
    | {
        id: string;
        email: string;
        first_name: string;
        organization_name: string;
        new_device: boolean;
        /** What finishing the sign-in asks next (sign-in-enrolment.ts), read here too. */
        policy: PolicyOfUser;
        hasStrongFactor: boolean;
      }
    | undefined;
  /** The "new sign-in" notice stored for a browser the account had not used, claimed to send. */
  notice: Job | null;
}

/**
 * The writes of a completed sign-in, in one statement (issue 18: four, one after another): the
 * account's last sign-in, the end of its sign-in in progress and of the run of failures it was
 * judged by (throttle.ts `clearedBy`; old rows of anyone's are pruned on the way), and this browser among its known devices. Nothing is written
 * when the account is no longer active. With `codeId`, the e-mail code is used up in the same
 * statement and nothing else is written unless it was still unused; with `notice`, the message
 * telling the owner of a new browser is stored there too, only for a new browser.
 */
export async function recordCompletedSignIn(
  db: DbOrTrx,
  input: {
    context: string;
    identifier: string;
    deviceHash: string;
    /** The address, and whether the browser was known before: which failures the success ends. */
    ip: string;
    knownDevice: boolean;
    codeId?: string;
    notice?: { job: NewJob; claim: ClaimHere };
  },
): Promise<CompletedSignIn> {
  const { codeId, notice } = input;
  const { rows } = await sql<{
    code_used: boolean;
    notice: Job | null;
    id: string | null;
    email: string;
    first_name: string;
    organization_id: string;
    organization_name: string;
    new_device: boolean;
    is_admin: boolean;
    passkey: boolean;
    totp: boolean;
    strong_factor_required: SignInPolicy['strongFactorRequired'] | null;
    email_code_allowed: boolean | null;
    trusted_browsers_allowed: boolean | null;
  }>`
    with used as (
      ${
        codeId
          ? sql`update email_codes set consumed_at = now(), used_at = now()
              where id = ${codeId} and consumed_at is null returning id`
          : sql`select 1 as id`
      }
    ), signed_in as (
      update users u set last_sign_in_at = now() from organizations o
      where o.id = u.organization_id and u.email = ${input.identifier} and u.status = 'active'
        and exists (select 1 from used)
      returning u.id, u.email, u.first_name, u.organization_id, o.name as organization_name
    ), progress as (
      delete from sign_in_progress where context = ${input.context} and exists (select 1 from signed_in)
    ), failures as (
      delete from sign_in_failures
      where (${clearedBy(input)} or failed_at < now() - interval '1 day')
        and exists (select 1 from signed_in)
    ), device as (
      insert into known_devices (user_id, device_hash) select id, ${input.deviceHash} from signed_in
      on conflict (user_id, device_hash) do update set last_seen_at = now()
      -- now() is the transaction's start: equal to first_seen_at only for a row inserted here.
      returning first_seen_at = now() as is_new
    ), notice as (
      ${
        notice
          ? insertClaimedJob(notice.job, notice.claim, sql`coalesce((select is_new from device), false)`)
          : sql`select null where false`
      }
    )
    select exists (select 1 from used) as code_used, (select to_jsonb(n) from notice n) as notice,
      s.*, coalesce((select is_new from device), false) as new_device,
      ${strongFactorColumns(sql.ref('s.id'))}, ${isAdminOf(sql.ref('s.id'))} as is_admin,
      p.strong_factor_required, p.email_code_allowed, p.trusted_browsers_allowed
    from (select 1) one left join signed_in s on true
    left join sign_in_policies p on p.organization_id = s.organization_id`.execute(db);
  const row = rows[0]!;
  const { id } = row;
  return {
    codeUsed: row.code_used,
    notice: row.notice && jobFromJson(row.notice),
    user: id
      ? { ...row, id, policy: toPolicyOfUser({ ...row, id }), hasStrongFactor: row.passkey || row.totp }
      : undefined,
  };
}

/** A latest code read through `to_jsonb`: its timestamp comes back as text. */
const latestFromJson = (row: LatestCodeRow) =>
  toLatestCode({ ...row, created_at: new Date(row.created_at), sent_at: new Date(row.sent_at) });

/** What the code step reads before it checks the code. */
export interface CodeStep {
  /** The sign-in between password and second factor, if the password was right. */
  progress: SignInProgress | undefined;
  /** The newest code of this sign-in, used or not. */
  latest: LatestCode | undefined;
  /** The failures of the latest code's address (none without one). */
  failures: FailureCounts;
  /** The code the latest's address may still use for this sign-in. */
  open: OpenCode | undefined;
  /** Who the latest code went to, as a "new sign-in" notice names them (none if deleted since). */
  recipient: NoticeRecipient | undefined;
}

/**
 * The code step's reads in one statement (issue 18: four, one after another): the sign-in in
 * progress, its latest code, the throttling of that code's address, the code still open and the
 * names a "new sign-in" notice to that address would carry.
 */
export async function findCodeStep(
  db: Db,
  /** `deviceHash`: the sha256 of the browser's device cookie, if it sent one (throttle.ts). */
  input: { context: string; ip: string; deviceHash?: string | null },
): Promise<CodeStep> {
  const { context, ip, deviceHash = null } = input;
  const { rows } = await sql<{
    progress: SignInProgress | null;
    latest: LatestCodeRow | null;
    failures: FailureCounts;
    open: OpenCode | null;
    recipient: NoticeRecipient | null;
  }>`
    select (select to_jsonb(p) from (${liveProgress(context)}) p) as progress,
      to_jsonb(l) as latest, to_jsonb(f) as failures, to_jsonb(c) as open, to_jsonb(r) as recipient
    from (select 1 as none) one
    left join lateral (${latestCode({ purpose: 'sign-in', context })}) l on true
    cross join lateral (${failureCounts(sql.ref('l.identifier'), ip, deviceHash)}) f
    left join lateral (${openCode({ purpose: 'sign-in', identifier: sql.ref('l.identifier'), context })}) c on true
    left join lateral (
      select u.email, u.first_name as "firstName", o.name as "organizationName"
      from users u join organizations o on o.id = u.organization_id where u.email = l.identifier
    ) r on true`.execute(db);
  const row = rows[0]!;
  // Through JSON, timestamps come back as text.
  const at = (value: Date | string | null) => (value === null ? null : new Date(value));
  return {
    progress: row.progress ?? undefined,
    latest: row.latest ? latestFromJson(row.latest) : undefined,
    failures: {
      ...row.failures,
      ipLast: at(row.failures.ipLast),
      allLast: at(row.failures.allLast),
      now: at(row.failures.now)!,
    },
    open: row.open ?? undefined,
    recipient: row.recipient ?? undefined,
  };
}
