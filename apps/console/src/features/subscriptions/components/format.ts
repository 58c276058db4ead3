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

const count = new Intl.NumberFormat('en');

/**
 * A seat's monthly price read from the operator's label ("$18 per user / month" → "$", 18), or
 * null when the label names no number, or a period other than a month (Atrium takes no payments,
 * so the label is all there is).
 */
export function seatPrice(plan: Plan): { symbol: string; amount: number } | null {
  if (plan.pricePerSeat === null) return { symbol: '', amount: 0 };
  const match = /^\s*([^\d\s]*)\s*(\d+(?:\.\d+)?)/.exec(plan.pricePerSeat);
  if (!match || !/month/i.test(plan.pricePerSeat)) return null;
  return { symbol: match[1] ?? '', amount: Number(match[2]) };
}

/** "$360,000 a month" for 20,000 seats at "$18 per user / month"; "Free"; null when unknown. */
export function monthlyTotal(plan: Plan, seats: number): string | null {
  const price = seatPrice(plan);
  if (!price) return null;
  if (price.amount === 0) return 'Free';
  const total = price.amount * seats;
  const digits = Number.isInteger(total) ? 0 : 2;
  return `${price.symbol}${total.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })} a month`;
}

/** 20000 → "20,000 seats". */
export const seatsText = (n: number) => `${count.format(n)} seat${n === 1 ? '' : 's'}`;
