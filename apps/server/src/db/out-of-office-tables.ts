import type { Generated } from 'kysely';
import type { Timestamp } from './database.ts';

/** A user's out-of-office reply (2026_12_08_0500; modules/out-of-office). */
export interface OutOfOfficeTable {
  user_id: string;
  organization_id: string;
  enabled: boolean;
  /** `YYYY-MM-DD`, inclusive. */
  first_day: string;
  last_day: string;
  subject: string;
  message: string;
  /** Raised by every save: the script id Dovecot compares before compiling again. */
  version: Generated<number>;
  updated_at: Timestamp;
}
