import { describeUserAgent } from '../../../lib/user-agent.ts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { changePasswordBody, changePasswordResponse, ownSessionsResponse } from '@atrium/contracts/auth';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { fieldError, notFound } from '../../../lib/errors.ts';
import type { Mailer } from '../../../lib/mail.ts';
import { hashPassword, passwordProblem, verifyPassword } from '../../../lib/passwords.ts';
import { principalOf } from '../../../plugins/auth-guard.ts';
import { recordActivity } from '../../activity/activity.repository.ts';
import { revokeUserAccess } from '../revoke-user-access.ts';
import { notifyPasswordChanged } from '../../notifications/notify.ts';
import { endConsoleSession } from '../console-client/end-console-session.ts';
import { routeOptions } from '../../../plugins/route-options.ts';

const tags = ['profile'];

/**
 * What a password change did, in words: the devices whose app passwords ended are named (issue 42
 * item 3), since they stop syncing until set up again.
 */
function passwordChangedMessage(devices: string[]): string {
  const done = 'Your password was changed.';
  if (devices.length === 0) return `${done} Your other sessions were signed out.`;
  const count = devices.length === 1 ? '1 device' : `${devices.length} devices`;
  const were = devices.length === 1 ? 'was' : 'were';
  return `${done} Your other sessions were signed out, and ${count} (${devices.join(', ')}) ${were} disconnected.`;
}

const route = routeOptions({ config: { access: 'user' }, tags });

/** The signed-in user's own password and console sessions (/profile). */
export const profileRoutes =
  (deps: { db: Db; config: Config; mailer: Mailer }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;

    app.get(
      '/api/profile/sessions',
      route('listOwnSessions', 'Your active console sessions, newest first', {
        response: { 200: ownSessionsResponse },
      }),
      async (request) => {
        const principal = principalOf(request);
        const rows = await db
          .selectFrom('console_sessions')
          .select(['id', 'created_at', 'last_seen_at', 'user_agent', 'ip'])
          .where('user_id', '=', principal.userId)
          .where('organization_id', '=', principal.organizationId)
          .where('expires_at', '>', sql<Date>`now()`)
          .orderBy('created_at', 'desc')
          .limit(100)
          .execute();
        return {
          sessions: rows.map((row) => ({
            id: row.id,
            current: row.id === principal.sessionId,
            createdAt: row.created_at.toISOString(),
            lastSeenAt: row.last_seen_at.toISOString(),
            userAgent: row.user_agent,
            browser: describeUserAgent(row.user_agent ?? undefined),
            ip: row.ip,
          })),
        };
      },
    );

    app.delete(
      '/api/profile/sessions/:sessionId',
      route('endOwnSession', 'Ends one of your sessions; that device signs in again with password and code', {
        params: z.object({ sessionId: z.string().min(1).max(100) }),
        response: { 204: z.null() },
      }),
      async (request, reply) => {
        const principal = principalOf(request);
        const ended = await db.transaction().execute((trx) =>
          endConsoleSession(trx, {
            organizationId: principal.organizationId,
            userId: principal.userId,
            sessionId: request.params.sessionId,
          }),
        );
        if (!ended) throw notFound('Session');
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/api/profile/password',
      route(
        'changeOwnPassword',
        'Changes your password (current password required); ends your other sessions and your app passwords, and names the devices that were disconnected',
        { body: changePasswordBody, response: { 200: changePasswordResponse } },
        { access: 'user', rateLimit: { max: 10, timeWindow: '1 minute' } },
      ),
      async (request) => {
        const principal = principalOf(request);
        const { currentPassword, newPassword } = request.body;
        const user = await db
          .selectFrom('users')
          .select(['id', 'password_hash', 'first_name', 'last_name'])
          .where('id', '=', principal.userId)
          .where('organization_id', '=', principal.organizationId)
          .executeTakeFirstOrThrow();
        if (!user.password_hash || !(await verifyPassword(user.password_hash, currentPassword))) {
          throw fieldError('currentPassword', 'Your current password is not correct');
        }
        const problem = passwordProblem(newPassword);
        if (problem) throw fieldError('newPassword', problem);
        if (newPassword === currentPassword) {
          throw fieldError('newPassword', 'Choose a password different from your current one');
        }
        const passwordHash = await hashPassword(newPassword);
        const ended = await db.transaction().execute(async (trx) => {
          await trx
            .updateTable('users')
            .set({ password_hash: passwordHash, password_changed_at: sql`now()` })
            .where('id', '=', user.id)
            .execute();
          const revoked = await revokeUserAccess(trx, user.id, {
            exceptConsoleSessionId: principal.sessionId,
          });
          const label = `${user.first_name} ${user.last_name}`.trim();
          await recordActivity(trx, {
            organizationId: principal.organizationId,
            actor: { userId: user.id, label },
            action: 'user.password_changed',
            target: { type: 'user', id: user.id, label },
            ip: request.ip,
          });
          await notifyPasswordChanged(
            trx,
            deps,
            { organizationId: principal.organizationId, userId: user.id },
            'changed',
          );
          return revoked.appPasswords;
        });
        return { message: passwordChangedMessage(ended), disconnectedDevices: ended };
      },
    );
  };
