import { dashboardSchema, type Dashboard } from '@atrium/contracts/dashboard';
import { SETUP_STEPS } from '@atrium/contracts/setup';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Db } from '../../db/database.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import { getProgress } from '../setup/setup.service.ts';
import { countOrganization, recentActivity } from './dashboard.repository.ts';

const RECENT_ACTIVITY = 10;

/** The admin home: setup checklist, counts and recent activity, in three queries. */
export const dashboardRoutes =
  ({ db }: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/dashboard',
      {
        config: { access: 'admin' },
        schema: {
          operationId: 'getDashboard',
          tags: ['dashboard'],
          summary: 'Admin home: open setup steps, counts of users, domains, groups and apps, recent activity',
          response: { 200: dashboardSchema },
        },
      },
      async (request): Promise<Dashboard> => {
        const { organizationId } = principalOf(request);
        const [progress, counts, activity] = await Promise.all([
          getProgress(db, organizationId),
          countOrganization(db, organizationId),
          recentActivity(db, organizationId, RECENT_ACTIVITY),
        ]);
        // A skipped step ("verify later") is still open: the checklist keeps showing it.
        const hasRecord = progress.done.length > 0 || progress.skipped.length > 0 || !progress.completed;
        return {
          setup: {
            completed: progress.completed,
            openSteps: hasRecord ? SETUP_STEPS.filter((step) => !progress.done.includes(step)) : [],
          },
          counts,
          recentActivity: activity.map((row) => ({
            id: row.id,
            actorLabel: row.actor_label,
            action: row.action,
            targetType: row.target_type,
            targetLabel: row.target_label,
            createdAt: row.created_at.toISOString(),
          })),
        };
      },
    );
  };
