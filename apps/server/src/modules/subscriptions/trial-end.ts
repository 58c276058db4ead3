import type { Config } from '../../config.ts';
import type { Db, DbOrTrx } from '../../db/database.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import type { JobWorker } from '../jobs/job-worker.ts';
import { enqueue } from '../jobs/jobs.repository.ts';
import { planCatalogOf } from './plan-catalog.ts';
import { queueSubscriptionWebhook, webhookView } from './subscription-webhook.ts';
import { insertHistory, lockSubscriptionRow, updateSubscription } from './subscriptions.repository.ts';

export const TRIAL_END_JOB = 'subscription.trial-end';

type TrialConfig = Pick<Config, 'planCatalog' | 'appCatalog' | 'subscriptionWebhook'>;

/** Asks the queue to look at the subscription when its trial ends. Call it where a trial starts. */
export async function scheduleTrialEnd(
  trx: DbOrTrx,
  organizationId: string,
  trialEndsAt: Date,
): Promise<void> {
  await enqueue(trx, {
    kind: TRIAL_END_JOB,
    payload: { organizationId },
    runAt: trialEndsAt,
    organizationId,
  });
}

/**
 * When a trial ends and nobody has said otherwise (the billing system or the operator would have
 * made it active or cancelled), the subscription becomes `past_due`: the organisation keeps
 * working while the billing system, told by the webhook, asks for payment. A trial that was
 * moved later is looked at again then.
 */
export function registerTrialEndJob(worker: JobWorker, deps: { db: Db; config: TrialConfig }): void {
  worker.register(TRIAL_END_JOB, async (payload) => {
    const { organizationId } = payload as { organizationId: string };
    await deps.db.transaction().execute(async (trx) => {
      const row = await lockSubscriptionRow(trx, organizationId);
      if (!row || row.status !== 'trial' || !row.trial_ends_at) return;
      if (row.trial_ends_at.getTime() > Date.now()) {
        await scheduleTrialEnd(trx, organizationId, row.trial_ends_at);
        return;
      }
      const next = {
        plan_key: row.plan_key,
        seats: row.seats,
        status: 'past_due' as const,
        trial_ends_at: row.trial_ends_at,
        renews_at: row.renews_at,
      };
      await updateSubscription(trx, organizationId, next);
      await insertHistory(trx, {
        organization_id: organizationId,
        actor_user_id: null,
        actor_label: 'System',
        source: 'system',
        from_plan_key: row.plan_key,
        from_seats: row.seats,
        from_status: row.status,
        plan_key: row.plan_key,
        seats: row.seats,
        status: next.status,
      });
      await recordActivity(trx, {
        organizationId,
        actor: null,
        action: 'subscription.trial_ended',
        target: {
          type: 'subscription',
          id: organizationId,
          label: planCatalogOf(deps.config).planOf(row.plan_key).title,
        },
        details: { plan: row.plan_key, status: next.status },
      });
      await queueSubscriptionWebhook(trx, deps.config, organizationId, 'subscription.trial_ended', {
        subscription: webhookView(next),
      });
    });
  });
}
