import type { Plan } from '@atrium/contracts/subscriptions';
import { describe, expect, it } from 'vitest';
import { monthlyTotal, seatsText } from './format.ts';

const plan = (pricePerSeat: string | null): Plan => ({
  key: 'p',
  title: 'P',
  description: '',
  seatLimit: null,
  pricePerSeat,
  mailboxQuotaMb: 1024,
  maxDomains: 1,
  allApps: true,
  appTemplates: [],
  trialDays: 0,
});

describe('monthlyTotal', () => {
  it('multiplies the label’s monthly price by the seats', () => {
    expect(monthlyTotal(plan('$18 per user / month'), 20_000)).toBe('$360,000 a month');
    expect(monthlyTotal(plan('€4.50 per user per month'), 3)).toBe('€13.50 a month');
  });
  it('says Free for a plan without a price, and nothing for a label it cannot read', () => {
    expect(monthlyTotal(plan(null), 5)).toBe('Free');
    expect(monthlyTotal(plan('Ask us'), 5)).toBeNull();
    expect(monthlyTotal(plan('$100 per user / year'), 5)).toBeNull();
  });
  it('writes seats with thousands separators', () => {
    expect(seatsText(20_000)).toBe('20,000 seats');
    expect(seatsText(1)).toBe('1 seat');
  });
});
