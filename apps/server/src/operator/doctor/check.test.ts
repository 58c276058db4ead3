import { describe, expect, it } from 'vitest';
import { fail, formatOutcome, pass, summaryLine, warn, type CheckOutcome } from './check.ts';

const named = (name: string, result: ReturnType<typeof pass>): CheckOutcome => ({ name, ...result });

describe("doctor's lines", () => {
  it('keeps warnings apart from failures: ⚠ with what to do next, passing', () => {
    expect(formatOutcome(named('Disk', pass('80% free')))).toBe('✓ Disk: 80% free');
    expect(formatOutcome(named('Postfix asks Atrium', warn('not yet', 'send a message')))).toBe(
      '⚠ Postfix asks Atrium: not yet — next: send a message',
    );
    expect(formatOutcome(named('Caddy', fail('stopped', 'service caddy start')))).toBe(
      '✗ Caddy: stopped — fix: service caddy start',
    );
    expect(warn('not yet', 'send a message').ok).toBe(true);
  });

  it('ends with the failures and the warnings counted apart', () => {
    const ok = named('A', pass('fine'));
    const warned = named('B', warn('not yet', 'try'));
    const failed = named('C', fail('down', 'start it'));
    expect(summaryLine([ok, ok])).toBe('All 2 checks pass.');
    expect(summaryLine([ok, warned])).toBe('All 2 checks pass (1 warning: see ⚠).');
    expect(summaryLine([ok, warned, warned, failed])).toBe('1 of 4 checks fail (2 warnings: see ⚠).');
  });
});
