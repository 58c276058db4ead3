import { describe, expect, it } from 'vitest';
import * as c from './constants.ts';

describe('seed spec constants', () => {
  it('has the timing constants in milliseconds', () => {
    expect(c.Timing).toEqual({
      SuperFast: 500,
      Fast: 1000,
      SuperMedium: 1500,
      Medium: 2000,
      SuperSlow: 2500,
      Slow: 3000,
      Installation: 5000,
    });
    expect([c.SuperFast, c.Fast, c.SuperMedium, c.Medium, c.SuperSlow, c.Slow, c.Installation]).toEqual([
      500, 1000, 1500, 2000, 2500, 3000, 5000,
    ]);
    expect(c.ReSend).toBe(60);
  });

  it('has the breakpoints and their names', () => {
    expect(c.SIDEBAR_BREAKPOINT).toBe(992);
    expect([c.AUTO_COLLAPSE_MIN, c.AUTO_COLLAPSE_MAX]).toEqual([992, 1024]);
    expect(c.HEADER_SEARCH_BREAKPOINT).toBe(600);
    expect(c.HEADER_COMPACT_MAX).toBe(575);
    expect(c.BREAKPOINT_NAMES).toEqual(['xxl', 'xl', 'lg', 'md', 'sm', 'xs']);
  });

  it('has the header, loading bar, scrollbar, avatar and cookie settings', () => {
    expect(c.SEARCH_COLLAPSE_DELAY).toBe(500);
    expect(c.SEARCH_NARROW_WIDTH).toBe('100px');
    expect(c.LOGO_WIDTH).toBe(180);
    expect(c.LOADING_BAR).toEqual({
      animationDuration: 200,
      incrementInterval: 800,
      minimum: 0.08,
      maximum: 0.994,
    });
    expect(c.SCROLLBAR_KEYBOARD_STEP).toBe(30);
    expect(c.AVATAR_DEFAULT).toEqual({ width: 30, height: 30, fontSize: 20, color: 'orange' });
    expect(c.COOKIE_LIFETIME_DAYS).toBe(1);
    expect(c.COOKIE_LIFETIME_MS).toBe(86_400_000);
  });
});
