import type { ColumnType, Generated, Kysely, Selectable, Transaction } from 'kysely';
import type {
  AppPasswordsTable,
  MailAddressesTable,
  MailboxUsageTable,
  MailServerContactsTable,
} from './mail-tables.ts';
import type { MailMigrationFoldersTable, MailMigrationsTable } from './mail-migration-tables.ts';
import type {
  MailPolicyVersionTable,
  MailSenderListsTable,
  MailSendingOrganizationsTable,
  MailSendingUsersTable,
  MailSpamSettingsTable,
} from './mail-protection-tables.ts';
import type { TakeoutDownloadLinksTable, TakeoutsTable } from './takeout-tables.ts';
import type { PasswordResetLinksTable } from './password-reset-tables.ts';
import type { DavAccountsTable, DeviceProfileLinksTable } from './device-tables.ts';
import type { OutOfOfficeTable } from './out-of-office-tables.ts';
import type { DirectoryCardsTable, DirectoryVersionsTable } from './directory-tables.ts';
import type {
  AuthenticatorAppsTable,
  RecoveryCodesTable,
  SignInEnrolmentsTable,
  SignInPoliciesTable,
  SignInProgressTable,
  TrustedBrowsersTable,
} from './sign-in-factor-tables.ts';
import type { PasskeysTable, WebauthnChallengesTable } from './passkey-tables.ts';
import type {
  SubscriptionHistoryTable,
  SubscriptionsTable,
  SubscriptionWebhookDeliveriesTable,
} from './subscription-tables.ts';
import type { UserImportRowsTable, UserImportsTable } from './user-import-tables.ts';

/** A column the database fills in on insert. */
export type Defaulted<T> = ColumnType<T, T | undefined, T>;
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
export type Json = ColumnType<unknown, string | undefined, string>;

export interface OrganizationsTable {
  id: Generated<string>;
  name: string;
  site_name: string;
  legal_name: string | null;
  industry: string | null;
  size: string | null;
  country: string | null;
  time_zone: string | null;
  created_at: Timestamp;
  /** The first message a mailbox of the organisation received (quota_clone); never cleared. */
  mail_first_received_at: NullableTimestamp;
}

export type UserStatus = 'active' | 'suspended' | 'invited';

export interface UsersTable {
  id: Generated<string>;
  organization_id: string;
  email: string;
  first_name: string;
  last_name: string;
  name_key: string;
  password_hash: string | null;
  status: Defaulted<UserStatus>;
  created_at: Timestamp;
  last_sign_in_at: NullableTimestamp;
  password_changed_at: NullableTimestamp;
  /** Where invitations go (issue 42 item 1); lower-cased, not unique. */
  personal_email: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface GroupsTable {
  id: Generated<string>;
  organization_id: string;
  name: string;
  name_key: string;
  is_system: Defaulted<boolean>;
  created_at: Timestamp;
}

export interface GroupMembersTable {
  group_id: string;
  user_id: string;
  organization_id: string;
  created_at: Timestamp;
}

export interface ConsoleSessionsTable {
  id: string;
  user_id: string;
  organization_id: string;
  csrf_token: string;
  id_token: string | null;
  oidc_sid: string | null;
  user_agent: string | null;
  ip: string | null;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

export interface MailOutboxTable {
  id: Generated<string>;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  created_at: Timestamp;
}

export interface ActivityLogTable {
  id: Generated<string>;
  organization_id: string;
  actor_user_id: string | null;
  actor_label: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  ip: string | null;
  details: Json;
  created_at: Timestamp;
}

export interface NotificationsTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  kind: string;
  title: string;
  body: Defaulted<string>;
  link: string | null;
  read_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface OidcPayloadsTable {
  id: string;
  type: string;
  payload: ColumnType<Record<string, unknown>, string, string>;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  expires_at: NullableTimestamp;
  consumed_at: NullableTimestamp;
}

export interface OidcKeysTable {
  kid: string;
  jwk_enc: string;
  created_at: Timestamp;
  retired_at: NullableTimestamp;
}

export interface OidcClientsTable {
  client_id: string;
  /** Null for the console's own client. */
  organization_id: string | null;
  metadata: ColumnType<Record<string, unknown>, string, string>;
  client_secret_enc: string | null;
  created_at: Timestamp;
}

export interface EmailCodesTable {
  id: Generated<string>;
  purpose: string;
  identifier: string;
  context: Defaulted<string>;
  code_hash: string;
  attempts: Defaulted<number>;
  created_at: Timestamp;
  expires_at: Timestamp;
  consumed_at: NullableTimestamp;
  /** Set when the code was entered right (consumed_at is also set when it died unused). */
  used_at: NullableTimestamp;
  /** The queued message carrying the code (modules/jobs); null for codes sent before the queue. */
  mail_job_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The code sealed with a key derived from ATRIUM_SECRET, to send it again; null for older codes. */
  code_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  /** When its message was last queued. */
  sent_at: Timestamp;
  /** Asked for from a browser the account has signed in with (reset codes: outside the shared cap). */
  known_device: Defaulted<boolean>;
  /** How many messages carried the code (the first and its re-sends). */
  sends: Defaulted<number>;
}

export interface SignInFailuresTable {
  id: Generated<number>;
  identifier: string;
  ip: string;
  failed_at: Timestamp;
  /** Made from a browser the account had signed in with before (throttle.ts counts these apart). */
  known_device: Defaulted<boolean>;
}

export interface SignInTicketsTable {
  id: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  consumed_at: NullableTimestamp;
}

/** A browser a user has signed in from; `device_hash` is the sha256 of its device cookie. */
export interface KnownDevicesTable {
  id: Generated<string>;
  user_id: string;
  device_hash: string;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
}

export type SignupStageName = 'site' | 'email' | 'verify' | 'account';

/** A sign-up in progress; `id` is the sha256 of the visitor's HttpOnly cookie. */
export interface SignupFlowsTable {
  id: string;
  stage: Defaulted<SignupStageName>;
  organization_name: string | null;
  site_name: string | null;
  email: string | null;
  email_verified_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  expires_at: Timestamp;
}

/** The setup wizard's progress per organisation. */
export interface OrganizationSetupTable {
  organization_id: string;
  current_step: Defaulted<string>;
  done_steps: ColumnType<string[], string[] | undefined, string[]>;
  skipped_steps: ColumnType<string[], string[] | undefined, string[]>;
  completed_at: NullableTimestamp;
  updated_at: Timestamp;
}

/** Set-password links (invitations, admin-sent resets); only the token's sha256 is kept. */
export interface InvitationsTable {
  id: Generated<string>;
  token_hash: string;
  user_id: string;
  organization_id: string;
  purpose: Defaulted<'invite' | 'reset'>;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface AppsTable {
  id: Generated<string>;
  organization_id: string;
  template_key: string;
  title: string;
  launch_url: string;
  client_id: string;
  open_to_everyone: Defaulted<boolean>;
  /** jsonb list of URLs; the OIDC client's post_logout_redirect_uris follow it. */
  post_logout_redirect_uris: ColumnType<string[], string | undefined, string>;
  /** Back-channel logout endpoint; the OIDC client's backchannel_logout_uri follows it. */
  backchannel_logout_uri: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface AppGroupsTable {
  app_id: string;
  group_id: string;
  organization_id: string;
}

export type DomainState = 'pending' | 'verified' | 'failed';

export interface DomainsTable {
  id: Generated<string>;
  organization_id: string;
  /** ASCII (punycode), lowercase, no trailing dot. */
  name: string;
  state: Defaulted<DomainState>;
  verification_token: string;
  is_primary: Defaulted<boolean>;
  dkim_private_key_enc: string;
  dkim_public_key: string;
  /** The selector of the current key, the one mail is signed with. */
  dkim_selector: Defaulted<string>;
  /** A key made by a rotation, published beside the current one until the admin switches to it. */
  dkim_next_selector: string | null;
  dkim_next_private_key_enc: string | null;
  dkim_next_public_key: string | null;
  dkim_next_created_at: NullableTimestamp;
  /** The key signed with before the last switch: still published until the admin retires it. */
  dkim_previous_selector: string | null;
  dkim_previous_public_key: string | null;
  dkim_switched_at: NullableTimestamp;
  created_at: Timestamp;
  verified_at: NullableTimestamp;
  last_checked_at: NullableTimestamp;
  last_check: ColumnType<unknown, string | null | undefined, string | null>;
  next_check_at: Timestamp;
  /** The last look-up of the DNS mapping (the domain page): when, how many records, how many in place. */
  records_checked_at: NullableTimestamp;
  records_total: number | null;
  records_ok: number | null;
}

export type JobStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/** The shared job queue (modules/jobs): mail, and later back-channel logout, webhooks, imports. */
export interface JobsTable {
  id: Generated<string>;
  kind: string;
  payload: ColumnType<unknown, string | undefined, string>;
  status: Defaulted<JobStatus>;
  attempts: Defaulted<number>;
  max_attempts: Defaulted<number>;
  run_at: Timestamp;
  locked_until: NullableTimestamp;
  locked_by: ColumnType<string | null, string | null | undefined, string | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  progress: ColumnType<unknown, string | null | undefined, string | null>;
  organization_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Every table; areas add theirs here together with their migration. */
export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  console_sessions: ConsoleSessionsTable;
  mail_outbox: MailOutboxTable;
  activity_log: ActivityLogTable;
  notifications: NotificationsTable;
  signup_flows: SignupFlowsTable;
  organization_setup: OrganizationSetupTable;
  oidc_payloads: OidcPayloadsTable;
  oidc_keys: OidcKeysTable;
  oidc_clients: OidcClientsTable;
  email_codes: EmailCodesTable;
  sign_in_failures: SignInFailuresTable;
  sign_in_tickets: SignInTicketsTable;
  known_devices: KnownDevicesTable;
  domains: DomainsTable;
  invitations: InvitationsTable;
  apps: AppsTable;
  app_groups: AppGroupsTable;
  jobs: JobsTable;
  user_imports: UserImportsTable;
  user_import_rows: UserImportRowsTable;
  subscriptions: SubscriptionsTable;
  subscription_history: SubscriptionHistoryTable;
  subscription_webhook_deliveries: SubscriptionWebhookDeliveriesTable;
  app_passwords: AppPasswordsTable;
  mail_addresses: MailAddressesTable;
  authenticator_apps: AuthenticatorAppsTable;
  recovery_codes: RecoveryCodesTable;
  sign_in_progress: SignInProgressTable;
  sign_in_policies: SignInPoliciesTable;
  trusted_browsers: TrustedBrowsersTable;
  sign_in_enrolments: SignInEnrolmentsTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  mailbox_usage: MailboxUsageTable;
  out_of_office: OutOfOfficeTable;
  mail_server_contacts: MailServerContactsTable;
  mail_spam_settings: MailSpamSettingsTable;
  mail_sender_lists: MailSenderListsTable;
  mail_sending_users: MailSendingUsersTable;
  mail_sending_organizations: MailSendingOrganizationsTable;
  mail_policy_version: MailPolicyVersionTable;
  mail_migrations: MailMigrationsTable;
  mail_migration_folders: MailMigrationFoldersTable;
  takeouts: TakeoutsTable;
  takeout_download_links: TakeoutDownloadLinksTable;
  device_profile_links: DeviceProfileLinksTable;
  dav_accounts: DavAccountsTable;
  directory_versions: DirectoryVersionsTable;
  directory_cards: DirectoryCardsTable;
  password_reset_links: PasswordResetLinksTable;
}

export type Db = Kysely<Database>;
/** Either the database or an open transaction: repositories accept both. */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;
export type User = Selectable<UsersTable>;
export type Organization = Selectable<OrganizationsTable>;
