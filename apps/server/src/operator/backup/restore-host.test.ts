import { describe, expect, it } from 'vitest';
import { restoredSettings } from './restore-host.ts';

// What restore keeps of the new host's settings file and takes from the snapshot's (docs/backup.md,
// "Restoring onto a new host"): the secrets come from the snapshot, the places from this host.

const snapshot = {
  PUBLIC_URL: 'https://atrium.example.com',
  DATA_DIR: '/old/var/lib/atrium/data',
  DATABASE_URL: 'postgres://atrium@db-old.internal/atrium',
  MAIL_DICT_SOCKET: '/old/run/atrium/dict.sock',
  MAIL_DKIM_DIR: '/old/var/lib/atrium/dkim',
  PORT: '8080',
  ATRIUM_SECRET: 'old-secret',
  OPERATOR_TOKEN: 'old-operator',
  BACKUP_TOKEN: 'old-backup',
  ATRIUM_INSTALL_RELAY_PORT: '10025',
  SMTP_URL: 'smtp://127.0.0.1:10025',
  BACKUP_REPOSITORY: '/old/var/backups/atrium/repository',
  BACKUP_TIME: '02:00',
  STRIPE_SECRET_KEY: 'sk_live_old',
};
const installed = {
  PUBLIC_URL: 'https://atrium.example.com',
  DATA_DIR: '/new/var/lib/atrium/data',
  MAIL_DICT_SOCKET: '/new/run/atrium/dict.sock',
  MAIL_DKIM_DIR: '/new/var/lib/atrium/dkim',
  PORT: '8081',
  ATRIUM_SECRET: 'new-secret',
  OPERATOR_TOKEN: 'new-operator',
  BACKUP_TOKEN: 'new-backup',
  ATRIUM_INSTALL_RELAY_PORT: '10026',
  SMTP_URL: 'smtp://127.0.0.1:10026',
  BACKUP_REPOSITORY: 'sftp:backup@vault:/atrium',
};

describe('restoredSettings', () => {
  it("takes the snapshot's secrets and the operator's own lines, and keeps this host's places", () => {
    expect(restoredSettings(installed, snapshot)).toEqual({
      ...installed,
      ATRIUM_SECRET: 'old-secret',
      OPERATOR_TOKEN: 'old-operator',
      BACKUP_TOKEN: 'old-backup',
      BACKUP_TIME: '02:00',
      STRIPE_SECRET_KEY: 'sk_live_old',
    });
    // The embedded database here: the old host's DATABASE_URL does not come with the snapshot.
    expect(restoredSettings(installed, snapshot).DATABASE_URL).toBeUndefined();
  });

  it("brings back the old operator's relay over install's loopback default, never over this operator's", () => {
    const relay = { ...snapshot, SMTP_URL: 'smtp://user:pass@relay.example.net:587' };
    expect(restoredSettings(installed, relay).SMTP_URL).toBe('smtp://user:pass@relay.example.net:587');
    const own = { ...installed, SMTP_URL: 'smtp://relay.here.example:25' };
    expect(restoredSettings(own, relay).SMTP_URL).toBe('smtp://relay.here.example:25');
  });
});
