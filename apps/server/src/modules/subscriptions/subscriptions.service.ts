import type {
  ChangeSubscriptionBody,
  MailPlan,
  Plan,
  SubscriptionResponse,
  SubscriptionStatus,
} from '@atrium/contracts/subscriptions';
import type { Config } from '../../config.ts';
import type { Db, DbOrTrx } from '../../db/database.ts';
import { conflict, fieldError, type FieldErrors } from '../../lib/errors.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import type { JobWorker } from '../jobs/job-worker.ts';
import { planCatalogOf, planIncludesApp, type CatalogPlan } from './plan-catalog.ts';
import { lockSubscription, plural } from './subscription-limits.ts';
import { monthAfter, startSubscription } from './subscription-start.ts';
import { webhookView } from './subscription-webhook.ts';
import { queueSubscriptionWebhook } from './subscription-webhook.ts';
import {
  findSubscription,
  insertHistory,
  listHistory,
  updateSubscription,
  usageOf,
  type SubscriptionRow,
  type SubscriptionState,
  type Usage,
} from './subscriptions.repository.ts';
import { organizationStorageBytes } from '../mail/settings/mailbox-usage.repository.ts';
import { mailIsConfigured } from '../mail/settings/mail-settings.service.ts';

export interface SubscriptionsDeps {
  db: Db;
  config: Config;
  /** Woken after a change commits so the webhook goes out at once; the CLI has none. */
  jobs?: Pick<JobWorker, 'wake'>;
}

const HISTORY_SHOWN = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Who made a change, for the history and the activity log. */
export interface ChangedBy {
  source: 'console' | 'operator';
  actor: { userId: string; label: string } | null;
  ip?: string | null;
}

function planView(config: Config, plan: CatalogPlan): Plan {
  const templates = planCatalogOf(config).appTemplates;
  return {
    key: plan.key,
    title: plan.title,
    description: plan.description,
    seatLimit: plan.seatLimit,
    pricePerSeat: plan.pricePerSeat,
    mailboxQuotaMb: plan.mailboxQuotaMb,
    // What this server lets the plan have: a plan card saying 100 while Usage says "of 30" misleads.
    maxDomains: maxDomainsOf(config, plan),
    allApps: plan.apps === 'all',
    appTemplates: templates
      .filter((t) => planIncludesApp(plan, t.key))
      .map((t) => ({ key: t.key, title: t.title })),
    trialDays: plan.trialDays,
  };
}

/** The plan's domains, or the server's cap when that is lower. */
const maxDomainsOf = (config: Config, plan: CatalogPlan) =>
  Math.min(plan.maxDomains, config.maxDomainsPerOrganization);

/** Plan, seats used of bought, dates, every plan to change to and the recent history. */
export async function getSubscription(
  deps: SubscriptionsDeps,
  organizationId: string,
): Promise<SubscriptionResponse> {
  const catalog = planCatalogOf(deps.config);
  const { row, plan } = await readSubscription(deps, organizationId);
  const usage = await usageOf(deps.db, organizationId);
  const history = await listHistory(deps.db, organizationId, HISTORY_SHOWN);
  return {
    subscription: {
      plan: planView(deps.config, plan),
      status: row.status,
      seats: row.seats,
      seatsUsed: usage.users,
      domainsUsed: usage.domains,
      maxDomains: maxDomainsOf(deps.config, plan),
      trialEndsAt: row.trial_ends_at?.toISOString() ?? null,
      renewsAt: row.renews_at?.toISOString() ?? null,
      updatedAt: row.updated_at.toISOString(),
    },
    plans: catalog.plans.map((p) => planView(deps.config, p)),
    history: history.map((h) => ({
      id: h.id,
      createdAt: h.created_at.toISOString(),
      actorLabel: h.actor_label,
      source: h.source,
      from:
        h.from_plan_key !== null && h.from_seats !== null && h.from_status !== null
          ? { planKey: h.from_plan_key, seats: h.from_seats, status: h.from_status }
          : null,
      to: { planKey: h.plan_key, seats: h.seats, status: h.status },
    })),
  };
}

/**
 * What would have to go before the organisation fits `plan` with `seats`: one sentence per
 * limit it is over, keyed by the form field it concerns.
 */
function overUsage(config: Config, plan: CatalogPlan, seats: number, usage: Usage): FieldErrors {
  const problems: FieldErrors = {};
  if (usage.users > seats) {
    problems.seats =
      `Delete ${plural(usage.users - seats, 'user')} first: ${plural(usage.users, 'user')} hold seats ` +
      `(invited and suspended ones too) and ${plural(seats, 'seat')} would not be enough.`;
  }
  const maxDomains = maxDomainsOf(config, plan);
  const notes: string[] = [];
  if (usage.domains > maxDomains) {
    notes.push(
      `Delete ${plural(usage.domains - maxDomains, 'domain')} first: the ${plan.title} plan allows ${plural(maxDomains, 'domain')} and your organisation has ${usage.domains}.`,
    );
  }
  const outside = usage.apps.filter((app) => !planIncludesApp(plan, app.templateKey));
  if (outside.length > 0) {
    notes.push(
      `Uninstall ${outside.map((a) => a.title).join(', ')} first: the ${plan.title} plan does not include ${outside.length === 1 ? 'it' : 'them'}.`,
    );
  }
  if (notes.length > 0) problems.planKey = notes.join(' ');
  return problems;
}

/**
 * The admin changes plan or seats on /subscriptions. It applies at once, up or down, unless the
 * organisation uses more than the new plan and seats allow: then nothing changes and the error
 * says what to remove first. Allowed while cancelled (choosing a plan makes it active again).
 */
export async function changeSubscription(
  deps: SubscriptionsDeps,
  organizationId: string,
  by: ChangedBy,
  body: ChangeSubscriptionBody,
): Promise<SubscriptionResponse> {
  const plan = planCatalogOf(deps.config).find(body.planKey);
  if (!plan) throw fieldError('planKey', `There is no plan "${body.planKey}"`);
  if (plan.seatLimit !== null && body.seats > plan.seatLimit) {
    throw fieldError(
      'seats',
      `The ${plan.title} plan allows at most ${plural(plan.seatLimit, 'seat')}; choose a larger plan for more.`,
    );
  }
  const changed = await deps.db.transaction().execute(async (trx) => {
    const { row } = await lockSubscription(trx, deps.config, organizationId);
    const problems = overUsage(deps.config, plan, body.seats, await usageOf(trx, organizationId));
    if (Object.keys(problems).length > 0) {
      throw conflict(
        `Your organisation uses more than the ${plan.title} plan with ${plural(body.seats, 'seat')} allows. ${Object.values(problems).join(' ')}`,
        problems,
        'below_usage',
      );
    }
    const next: SubscriptionState = { ...stateOf(row), plan_key: plan.key, seats: body.seats };
    // Choosing a plan ends a cancellation: a new paid period starts now.
    if (row.status === 'cancelled') Object.assign(next, activeFrom(new Date()));
    return applyChange(trx, deps.config, organizationId, row, next, by);
  });
  if (changed) deps.jobs?.wake();
  return getSubscription(deps, organizationId);
}

/**
 * The operator (or the billing system through the CLI) sets plan, seats and status. It may set
 * seats below what is used, as a billing system may need to: no more users can then be added
 * until enough are removed. Returns the state after and the users counted.
 */
export async function setPlanAsOperator(
  deps: SubscriptionsDeps,
  organizationId: string,
  input: { planKey: string; seats?: number | undefined; status?: SubscriptionStatus | undefined },
): Promise<{ state: SubscriptionState; seatsUsed: number; changed: boolean; plan: CatalogPlan }> {
  const plan = planCatalogOf(deps.config).find(input.planKey);
  if (!plan) {
    const keys = planCatalogOf(deps.config)
      .plans.map((p) => p.key)
      .join(', ');
    throw fieldError('plan', `there is no plan "${input.planKey}" (plans: ${keys})`);
  }
  return deps.db.transaction().execute(async (trx) => {
    const { row } = await lockSubscription(trx, deps.config, organizationId);
    const seats = input.seats ?? (row.plan_key === plan.key ? row.seats : plan.defaultSeats);
    if (plan.seatLimit !== null && seats > plan.seatLimit) {
      throw fieldError('seats', `the ${plan.title} plan allows at most ${plan.seatLimit} seats`);
    }
    const next: SubscriptionState = { ...stateOf(row), plan_key: plan.key, seats };
    const status = input.status ?? (row.status === 'cancelled' ? 'active' : row.status);
    if (status !== row.status) Object.assign(next, datesForStatus(status, plan, row, new Date()));
    const changed = await applyChange(trx, deps.config, organizationId, row, next, {
      source: 'operator',
      actor: null,
    });
    const usage = await usageOf(trx, organizationId);
    return { state: next, seatsUsed: usage.users, changed, plan };
  });
}

/** The subscription for reading, without a lock; one made before plans existed is started first. */
async function readSubscription(deps: SubscriptionsDeps, organizationId: string) {
  let row = await findSubscription(deps.db, organizationId);
  if (!row) {
    row = await deps.db.transaction().execute(async (trx) => {
      await startSubscription(trx, deps.config, organizationId, null);
      return (await findSubscription(trx, organizationId))!;
    });
  }
  return { row, plan: planCatalogOf(deps.config).planOf(row.plan_key) };
}

function stateOf(row: SubscriptionRow): SubscriptionState {
  return {
    plan_key: row.plan_key,
    seats: row.seats,
    status: row.status,
    trial_ends_at: row.trial_ends_at,
    renews_at: row.renews_at,
  };
}

function activeFrom(now: Date): Pick<SubscriptionState, 'status' | 'trial_ends_at' | 'renews_at'> {
  return { status: 'active', trial_ends_at: null, renews_at: monthAfter(now) };
}

/** The dates that go with a status an operator sets. */
function datesForStatus(
  status: SubscriptionStatus,
  plan: CatalogPlan,
  row: SubscriptionRow,
  now: Date,
): Pick<SubscriptionState, 'status' | 'trial_ends_at' | 'renews_at'> {
  if (status === 'active') return activeFrom(now);
  if (status === 'trial') {
    const trialEnd = new Date(now.getTime() + Math.max(plan.trialDays, 14) * DAY_MS);
    return { status, trial_ends_at: trialEnd, renews_at: trialEnd };
  }
  // Past due keeps its renewal date (the one that was not paid); cancelled renews no more.
  if (status === 'past_due') return { status, trial_ends_at: row.trial_ends_at, renews_at: row.renews_at };
  return { status, trial_ends_at: null, renews_at: null };
}

/** Writes the change with its history, activity entry and webhook; false when nothing changed. */
async function applyChange(
  trx: DbOrTrx,
  config: Config,
  organizationId: string,
  row: SubscriptionRow,
  next: SubscriptionState,
  by: ChangedBy,
): Promise<boolean> {
  const before = stateOf(row);
  const same =
    before.plan_key === next.plan_key &&
    before.seats === next.seats &&
    before.status === next.status &&
    before.trial_ends_at?.getTime() === next.trial_ends_at?.getTime() &&
    before.renews_at?.getTime() === next.renews_at?.getTime();
  if (same) return false;
  await updateSubscription(trx, organizationId, next);
  await insertHistory(trx, {
    organization_id: organizationId,
    actor_user_id: by.actor?.userId ?? null,
    actor_label: by.actor?.label ?? (by.source === 'operator' ? 'Operator' : 'System'),
    source: by.source,
    from_plan_key: before.plan_key,
    from_seats: before.seats,
    from_status: before.status,
    plan_key: next.plan_key,
    seats: next.seats,
    status: next.status,
  });
  const catalog = planCatalogOf(config);
  await recordActivity(trx, {
    organizationId,
    actor: by.actor,
    action: 'subscription.changed',
    target: { type: 'subscription', id: organizationId, label: catalog.planOf(next.plan_key).title },
    ip: by.ip ?? null,
    details: {
      from: { plan: before.plan_key, seats: before.seats, status: before.status },
      to: { plan: next.plan_key, seats: next.seats, status: next.status },
      by: by.source,
    },
  });
  await queueSubscriptionWebhook(trx, config, organizationId, 'subscription.changed', {
    previous: webhookView(before),
    subscription: webhookView(next),
    changedBy: by.source,
  });
  return true;
}

/**
 * The seed spec's "mail plan details": the quota per mailbox and, where the operator runs the
 * mail service, what the mailboxes use. Every user has a mailbox.
 */
export async function getMailPlan(deps: SubscriptionsDeps, organizationId: string): Promise<MailPlan> {
  const { plan } = await readSubscription(deps, organizationId);
  const usage = await usageOf(deps.db, organizationId);
  // Postfix and Dovecot ask Atrium through these two listeners (modules/mail); Dovecot's
  // quota_clone reports each mailbox's usage through the dict one.
  const mailConfigured = mailIsConfigured(deps.config);
  const usedBytes = mailConfigured ? await organizationStorageBytes(deps.db, organizationId) : 0;
  return {
    planKey: plan.key,
    planTitle: plan.title,
    quotaPerMailboxMb: plan.mailboxQuotaMb,
    mailboxes: usage.users,
    mailConfigured,
    usage: mailConfigured
      ? {
          usedMb: Math.round((usedBytes / (1024 * 1024)) * 10) / 10,
          quotaMb: plan.mailboxQuotaMb * usage.users,
        }
      : null,
  };
}
