import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import type { SenderListName, SpamSensitivity } from '@atrium/contracts/mail-protection';

// What rspamd's HTTP maps are built from; one query each, deployment-wide (rspamd asks for all
// organisations at once and matches by recipient).

/** Bumped by triggers whenever a map's content may have changed (2026_12_08_0601). */
export async function policyVersion(db: DbOrTrx): Promise<string> {
  const row = await db
    .selectFrom('mail_policy_version')
    .select('version')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return String(row.version);
}

/**
 * The keys of one list: `<recipient domain>:<sender>` for each organisation's entry on each of its
 * verified domains, `<address>:<sender>` for users' own entries, for their address and each alias
 * (mail_addresses_user_idx).
 */
export async function senderListKeys(db: DbOrTrx, list: SenderListName): Promise<string[]> {
  const { rows } = await sql<{ key: string }>`
    select d.name || ':' || l.value as key
      from mail_sender_lists l
      join domains d on d.organization_id = l.organization_id and d.state = 'verified'
     where l.list = ${list} and l.user_id is null
    union all
    select a.address || ':' || l.value
      from mail_sender_lists l
      join mail_addresses a on a.user_id = l.user_id and a.kind in ('primary', 'alias')
     where l.list = ${list} and l.user_id is not null
    order by 1`.execute(db);
  return rows.map((row) => row.key);
}

/** Organisations whose settings differ from the default, with their verified domains. */
export async function nonDefaultSettings(db: DbOrTrx) {
  const { rows } = await sql<{
    organization_id: string;
    sensitivity: SpamSensitivity;
    greylisting: boolean;
    domains: string[];
  }>`
    select s.organization_id, s.sensitivity, s.greylisting, array_agg(d.name order by d.name) as domains
      from mail_spam_settings s
      join domains d on d.organization_id = s.organization_id and d.state = 'verified'
     where s.sensitivity <> 'standard' or not s.greylisting
     group by s.organization_id, s.sensitivity, s.greylisting
     order by s.organization_id`.execute(db);
  return rows;
}
