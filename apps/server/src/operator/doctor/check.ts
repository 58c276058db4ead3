/**
 * One line of `npm run atrium -- doctor` (and of the operator status endpoint): a named check
 * that passes or fails, with what it found and, when it fails, the command or record that
 * fixes it. Checks are independent and read-only; a check that throws fails with the error's
 * first line instead of stopping the others.
 */
export interface CheckResult {
  ok: boolean;
  detail: string;
  /** What to run or publish to make it pass; only for a failure. */
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

/** `✓ name: detail` or `✗ name: detail — fix: …`: one line each, for cron mail and monitors' logs. */
export function formatOutcome(outcome: CheckOutcome): string {
  const line = `${outcome.ok ? '✓' : '✗'} ${outcome.name}: ${outcome.detail}`;
  return outcome.ok || !outcome.fix ? line : `${line} — fix: ${outcome.fix}`;
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
