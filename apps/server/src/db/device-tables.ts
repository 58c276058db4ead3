import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './database.ts';

// Devices' tables (modules/devices, 2026_12_03_0100; modules/dav, 2026_12_04_0100); listed in Database.

/** A one-time link to an Apple configuration profile; the app password inside it is sealed. */
export interface DeviceProfileLinksTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  app_password_id: string;
  token_hash: string;
  password_sealed: string;
  created_at: Timestamp;
  expires_at: Date;
}

/** A user whose calendars and address books Radicale holds (modules/dav, 2026_12_04_0100). */
export interface DavAccountsTable {
  user_id: string;
  organization_id: string;
  created_at: Timestamp;
  /** When its default collections were last found or made (2026_12_08_0300); null: look again. */
  checked_at: NullableTimestamp;
}
