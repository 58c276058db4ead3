import { afterEach, describe, expect, it } from 'vitest';
import { NOTIFICATIONS_POLL_MS, notificationsPollInterval, POLL_OVERRIDE_KEY } from './poll-interval.ts';

afterEach(() => window.localStorage.clear());

describe('notifications polling interval', () => {
  it('is 30 seconds, well inside the minute a new notification may take', () => {
    expect(NOTIFICATIONS_POLL_MS).toBe(30_000);
    expect(notificationsPollInterval()).toBe(30_000);
  });

  it('takes a per-browser override between 1 and 60 seconds, and ignores anything else', () => {
    window.localStorage.setItem(POLL_OVERRIDE_KEY, '1000');
    expect(notificationsPollInterval()).toBe(1000);
    for (const value of ['0', '999', '60001', 'fast', '']) {
      window.localStorage.setItem(POLL_OVERRIDE_KEY, value);
      expect(notificationsPollInterval()).toBe(30_000);
    }
  });
});
