import type { SignInPolicy } from '@atrium/contracts/sign-in-policy';
import { sql } from 'kysely';
import type { Db, DbOrTrx } from '../../db/database.ts';
import type { CodeRecipient } from './auth-mail.ts';
import { toPolicyOfUser, type PolicyOfUser } from './sign-in-policy.repository.ts';
import type { StrongFactors } from './strong-factors.ts';
import { failureCounts, type FailureCounts } from './throttle.ts';

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
  identifier: string,
  ip: string,
): Promise<{ failures: FailureCounts; account: PasswordStepAccount | undefined }> {
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
    }
  >`
    select f.*, u.id, u.password_hash, u.status, u.email, u.organization_id, o.name as organization_name,
      exists (select 1 from passkeys where user_id = u.id) as passkey,
      exists (select 1 from authenticator_apps where user_id = u.id and confirmed_at is not null) as totp,
      exists (select 1 from group_members gm join groups g on g.id = gm.group_id
        where gm.user_id = u.id and g.is_system) as is_admin,
      p.strong_factor_required, p.email_code_allowed, p.trusted_browsers_allowed
    from (${failureCounts(identifier, ip)}) f
    left join (users u join organizations o on o.id = u.organization_id) on u.email = ${identifier}
    left join sign_in_policies p on p.organization_id = u.organization_id`.execute(db);
  const row = rows[0]!;
  const failures = {
    ipCount: row.ipCount,
    ipLast: row.ipLast,
    allCount: row.allCount,
    allLast: row.allLast,
    now: row.now,
  };
  if (!row.id) return { failures, account: undefined };
  return {
    failures,
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

/**
 * The writes of a completed sign-in, in one statement (issue 18: four, one after another): the
 * account's last sign-in, the end of its sign-in in progress and of its run of failures (old rows
 * of anyone's are pruned on the way), and this browser among its known devices. Nothing is written
 * when the account is no longer active; then nothing is returned.
 */
export async function recordCompletedSignIn(
  db: DbOrTrx,
  input: { context: string; identifier: string; deviceHash: string },
): Promise<
  | { id: string; email: string; first_name: string; organization_name: string; new_device: boolean }
  | undefined
> {
  const { rows } = await sql<{
    id: string;
    email: string;
    first_name: string;
    organization_name: string;
    new_device: boolean;
  }>`
    with signed_in as (
      update users u set last_sign_in_at = now() from organizations o
      where o.id = u.organization_id and u.email = ${input.identifier} and u.status = 'active'
      returning u.id, u.email, u.first_name, o.name as organization_name
    ), progress as (
      delete from sign_in_progress where context = ${input.context} and exists (select 1 from signed_in)
    ), failures as (
      delete from sign_in_failures
      where (identifier = ${input.identifier} or failed_at < now() - interval '1 day')
        and exists (select 1 from signed_in)
    ), device as (
      insert into known_devices (user_id, device_hash) select id, ${input.deviceHash} from signed_in
      on conflict (user_id, device_hash) do update set last_seen_at = now()
      -- now() is the transaction's start: equal to first_seen_at only for a row inserted here.
      returning first_seen_at = now() as is_new
    )
    select s.*, coalesce((select is_new from device), false) as new_device from signed_in s`.execute(db);
  return rows[0];
}
