import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import type { SubscriptionStatus } from '../../src/db/subscription-tables.ts';
import { randomToken, sha256 } from '../../src/lib/crypto.ts';
import {
  SESSION_COOKIE,
  SESSION_LIFETIME_SECONDS,
} from '../../src/modules/auth/console-client/session-cookie.ts';
import { insertSession } from '../../src/modules/auth/sessions/sessions.repository.ts';

export interface TestUser {
  id: string;
  email: string;
  organizationId: string;
}

export interface TestOrganization {
  id: string;
  siteName: string;
  admin: TestUser;
  dashboardGroupId: string;
}

const unique = () => randomBytes(4).toString('hex');

/**
 * The subscription fixture organisations get: a plan roomy enough that no test meets a limit it
 * is not about. Tests of the limits pass their own.
 */
export const ROOMY_SUBSCRIPTION = { planKey: 'enterprise', seats: 1000, status: 'active' } as const;

/** An organisation with one admin (a member of Dashboard), written straight to the database. */
export async function createOrganizationWithAdmin(
  db: Kysely<Database>,
  options: {
    siteName?: string;
    adminEmail?: string;
    passwordHash?: string | null;
    subscription?: { planKey: string; seats: number; status: SubscriptionStatus };
  } = {},
): Promise<TestOrganization> {
  const siteName = options.siteName ?? `org-${unique()}`;
  return db.transaction().execute(async (trx) => {
    const org = await trx
      .insertInto('organizations')
      .values({ name: `Org ${siteName}`, site_name: siteName })
      .returning('id')
      .executeTakeFirstOrThrow();
    const group = await trx
      .insertInto('groups')
      .values({ organization_id: org.id, name: 'Dashboard', name_key: 'dashboard', is_system: true })
      .returning('id')
      .executeTakeFirstOrThrow();
    const admin = await insertUser(trx, org.id, {
      email: options.adminEmail ?? `admin-${unique()}@${siteName}.example.com`,
      firstName: 'Ada',
      lastName: 'Admin',
      passwordHash: options.passwordHash ?? null,
    });
    await trx
      .insertInto('group_members')
      .values({ group_id: group.id, user_id: admin.id, organization_id: org.id })
      .execute();
    const subscription = options.subscription ?? ROOMY_SUBSCRIPTION;
    await trx
      .insertInto('subscriptions')
      .values({
        organization_id: org.id,
        plan_key: subscription.planKey,
        seats: subscription.seats,
        status: subscription.status,
      })
      .execute();
    return { id: org.id, siteName, admin, dashboardGroupId: group.id };
  });
}

/** A plain member (no groups) of an organisation. */
export async function createUser(
  db: Kysely<Database>,
  organizationId: string,
  options: { email?: string; firstName?: string; lastName?: string; passwordHash?: string | null } = {},
): Promise<TestUser> {
  return insertUser(db, organizationId, {
    email: options.email ?? `user-${unique()}@example.com`,
    firstName: options.firstName ?? 'Uma',
    lastName: options.lastName ?? 'User',
    passwordHash: options.passwordHash ?? null,
  });
}

async function insertUser(
  db: Kysely<Database>,
  organizationId: string,
  u: { email: string; firstName: string; lastName: string; passwordHash: string | null },
): Promise<TestUser> {
  const row = await db
    .insertInto('users')
    .values({
      organization_id: organizationId,
      email: u.email.toLowerCase(),
      first_name: u.firstName,
      last_name: u.lastName,
      name_key: `${u.firstName} ${u.lastName}`.toLowerCase(),
      password_hash: u.passwordHash,
    })
    .returning(['id', 'email'])
    .executeTakeFirstOrThrow();
  return { id: row.id, email: row.email, organizationId };
}

export interface TestSession {
  cookie: string;
  csrfToken: string;
  /** Headers for `app.inject`: the session cookie and the CSRF token. */
  headers: { cookie: string; 'x-csrf-token': string };
}

/**
 * A console session for a user, as the SSO callback would create it. Tests of the sign-in
 * flow itself go through the real provider instead.
 */
export async function signInAs(db: Kysely<Database>, user: TestUser): Promise<TestSession> {
  const token = randomToken();
  const csrfToken = randomToken();
  await insertSession(db, {
    id: sha256(token),
    userId: user.id,
    organizationId: user.organizationId,
    csrfToken,
    expiresAt: new Date(Date.now() + SESSION_LIFETIME_SECONDS * 1000),
  });
  const cookie = `${SESSION_COOKIE}=${token}`;
  return { cookie, csrfToken, headers: { cookie, 'x-csrf-token': csrfToken } };
}
