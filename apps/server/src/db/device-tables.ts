import type { Generated } from 'kysely';
import type { Timestamp } from './database.ts';

// Devices' table (modules/devices, 2026_12_03_0100); listed in Database.

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
