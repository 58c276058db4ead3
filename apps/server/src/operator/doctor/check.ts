/**
 * One line of `npm run atrium -- doctor` (and of the operator status endpoint): a named check
 * that passes or fails, with what it found and, when it fails, the command or record that
 * fixes it. Checks are independent and read-only; a check that throws fails with the error's
 * first line instead of stopping the others.
 */
export interface CheckResult {
  ok: boolean;
  /**
   * Passes, with something to look at (⚠ "no mail yet" on a fresh host): printed apart from the
   * failures and never a reason for exit code 1 or a 503, so a monitor is not woken for it.
   */
  warning?: boolean;
  detail: string;
  /** What to run or publish to make it pass; for a failure, and what to do next for a warning. */
  fix?: string;
}

export interface Check {
  name: string;
  run(): Promise<CheckResult>;
}

export interface CheckOutcome extends CheckResult {
  name: string;
}

export const pass = (detail: string): CheckResult => ({ ok: true, detail });
export const fail = (detail: string, fix: string): CheckResult => ({ ok: false, detail, fix });
export const warn = (detail: string, next: string): CheckResult => ({
  ok: true,
  warning: true,
  detail,
  fix: next,
});

/** Runs every check at once (they wait on sockets, DNS and files, not on each other), in order. */
export async function runChecks(checks: Check[]): Promise<CheckOutcome[]> {
  return Promise.all(
    checks.map(async (check) => {
      try {
        return { name: check.name, ...(await check.run()) };
      } catch (error) {
        const message = (error as Error).message?.split('\n')[0] ?? String(error);
        return { name: check.name, ok: false, detail: `the check itself failed: ${message}` };
      }
    }),
  );
}

/**
 * `✓ name: detail`, `⚠ name: detail — next: …` or `✗ name: detail — fix: …`: one line each, for
 * cron mail and monitors' logs.
 */
export function formatOutcome(outcome: CheckOutcome): string {
  if (!outcome.ok) {
    const line = `✗ ${outcome.name}: ${outcome.detail}`;
    return outcome.fix ? `${line} — fix: ${outcome.fix}` : line;
  }
  const line = `${outcome.warning ? '⚠' : '✓'} ${outcome.name}: ${outcome.detail}`;
  return outcome.warning && outcome.fix ? `${line} — next: ${outcome.fix}` : line;
}

/** The last line: how many checks fail, and how many warn, of how many. */
export function summaryLine(outcomes: CheckOutcome[]): string {
  const failed = outcomes.filter((o) => !o.ok).length;
  const warned = outcomes.filter((o) => o.ok && o.warning).length;
  const warnings = warned === 0 ? '' : ` (${warned} warning${warned === 1 ? '' : 's'}: see ⚠)`;
  return failed === 0
    ? `All ${outcomes.length} checks pass${warnings}.`
    : `${failed} of ${outcomes.length} checks fail${warnings}.`;
}

/** `3 minutes`, `2 hours`, `5 days`: an age for a line. */
export function describeAge(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} hours`;
  return `${Math.round(hours / 24)} days`;
}
