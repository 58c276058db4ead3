import type { OutOfOfficeBody, OutOfOfficeView } from '@atrium/contracts/out-of-office';
import type { Db } from '../../db/database.ts';
import { OUT_OF_OFFICE_SCRIPT } from '../mail/config/dovecot-config.ts';
import { outOfOfficeScript } from '../mail/config/sieve-scripts.ts';
import {
  aliasesOf,
  enabledOutOfOfficeOf,
  findOutOfOffice,
  saveOutOfOffice,
  type OutOfOfficeRow,
} from './out-of-office.repository.ts';

type Owner = { organizationId: string; userId: string };

/** Today in the mail host's time zone, the one Sieve's `currentdate` reads (`YYYY-MM-DD`). */
export function localDay(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

function view(row: OutOfOfficeRow | undefined, now: Date): OutOfOfficeView {
  if (!row) {
    // Never saved: off, for the coming week, with words the user only has to adjust.
    const today = localDay(now);
    const week = localDay(new Date(now.getTime() + 6 * 24 * 3600 * 1000));
    return {
      enabled: false,
      firstDay: today,
      lastDay: week,
      subject: 'Out of office',
      message: '',
      activeNow: false,
      updatedAt: null,
    };
  }
  const today = localDay(now);
  return {
    enabled: row.enabled,
    firstDay: row.first_day,
    lastDay: row.last_day,
    subject: row.subject,
    message: row.message,
    activeNow: row.enabled && row.first_day <= today && today <= row.last_day,
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function getOutOfOffice(db: Db, owner: Owner, now = new Date()): Promise<OutOfOfficeView> {
  return view(await findOutOfOffice(db, owner), now);
}

export async function putOutOfOffice(
  db: Db,
  owner: Owner,
  body: OutOfOfficeBody,
  now = new Date(),
): Promise<OutOfOfficeView> {
  return view(await saveOutOfOffice(db, owner, body), now);
}

const NAME_KEY = `priv/sieve/name/${OUT_OF_OFFICE_SCRIPT}`;
const DATA_KEY = /^priv\/sieve\/data\/v(\d{1,9})$/;

/**
 * Pigeonhole's dict script storage (dovecot.conf's sieve_before2), asked at each delivery for the
 * recipient `user`: `priv/sieve/name/out-of-office` answers the script's id (`v<version>`, changed
 * by every save, so Dovecot compiles the new text) or nothing when the reply is off;
 * `priv/sieve/data/<id>` answers the script. Other keys are not Atrium's to answer here (null).
 */
export function outOfOfficeDict(db: Db) {
  return async (key: string, user: string | undefined): Promise<string | null | undefined> => {
    if (!key.startsWith('priv/sieve/')) return undefined;
    if (!user) return null;
    const isName = key === NAME_KEY;
    const data = DATA_KEY.exec(key);
    if (!isName && !data) return null;
    const row = await enabledOutOfOfficeOf(db, user.toLowerCase());
    if (!row) return null;
    if (isName) return `v${row.version}`;
    return outOfOfficeScript({
      addresses: await aliasesOf(db, row.user_id),
      subject: row.subject,
      message: row.message,
      firstDay: row.first_day,
      lastDay: row.last_day,
    });
  };
}
