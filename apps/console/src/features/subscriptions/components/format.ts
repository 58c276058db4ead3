import type { Plan, SubscriptionStatus } from '@atrium/contracts/subscriptions';

const day = new Intl.DateTimeFormat('en', { dateStyle: 'medium' });

/** "Dec 7, 2026". */
export const formatDay = (iso: string) => day.format(new Date(iso));

/** 5120 → "5 GB", 512 → "512 MB" (binary units, as mail servers count quotas). */
export function formatQuota(mb: number): string {
  if (mb >= 1024 * 1024) return `${+(mb / (1024 * 1024)).toFixed(1)} TB`;
  if (mb >= 1024) return `${+(mb / 1024).toFixed(1)} GB`;
  return `${mb} MB`;
}

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const STATUS_LABELS: Record<SubscriptionStatus, string> = {
  trial: 'Trial',
  active: 'Active',
  past_due: 'Payment due',
  cancelled: 'Cancelled',
};

/** What a plan gives, one line each, as the plan card and the plan chooser list them. */
export function planFeatures(plan: Plan): string[] {
  return [
    plan.seatLimit === null ? 'As many seats as you buy' : `Up to ${plural(plan.seatLimit, 'seat')}`,
    `${formatQuota(plan.mailboxQuotaMb)} mailbox per user`,
    plural(plan.maxDomains, 'domain'),
    plan.allApps ? 'Every app of the catalog' : `Apps: ${plan.appTemplates.map((a) => a.title).join(', ')}`,
    ...(plan.trialDays > 0 ? [`${plan.trialDays}-day free trial`] : []),
  ];
}

export const priceOf = (plan: Plan) => plan.pricePerSeat ?? 'Free';
