import type { CatalogPlan } from './plan-catalog.ts';

/**
 * The built-in plans (docs/subscriptions.md), used when PLAN_CATALOG is unset and merged under the
 * operator's file. New organisations start on Business, on a 14-day trial with 10 seats, as a
 * Google Workspace trial does.
 */
export const BUILT_IN_PLANS: CatalogPlan[] = [
  {
    key: 'free',
    title: 'Free',
    description: 'For a small team trying Atrium: a few users on one domain.',
    seatLimit: 5,
    pricePerSeat: null,
    defaultSeats: 5,
    mailboxQuotaMb: 5 * 1024,
    maxDomains: 1,
    sendPerUserPerHour: 100,
    sendPerOrganizationPerHour: 300,
    apps: ['cloud-storage', 'mail', 'chat'],
    trialDays: 0,
  },
  {
    key: 'business',
    title: 'Business',
    description: 'Every app, several domains and larger mailboxes.',
    seatLimit: 300,
    pricePerSeat: '$6 per user / month',
    defaultSeats: 10,
    mailboxQuotaMb: 30 * 1024,
    maxDomains: 10,
    sendPerUserPerHour: 300,
    sendPerOrganizationPerHour: 3_000,
    apps: 'all',
    trialDays: 14,
  },
  {
    key: 'enterprise',
    title: 'Enterprise',
    description: 'No seat limit, many domains and the largest mailboxes.',
    seatLimit: null,
    pricePerSeat: '$18 per user / month',
    defaultSeats: 50,
    mailboxQuotaMb: 100 * 1024,
    maxDomains: 100,
    sendPerUserPerHour: 500,
    sendPerOrganizationPerHour: 20_000,
    apps: 'all',
    trialDays: 0,
  },
];

export const BUILT_IN_DEFAULT_PLAN = 'business';
