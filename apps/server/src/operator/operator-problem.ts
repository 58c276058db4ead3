import { ERRNO_MEANINGS } from '../lib/startup-problem.ts';

/**
 * What an operator command reports when it cannot go on: one line naming the thing, what is
 * wrong with it and what to do. The CLI prints the message alone (no stack trace) and exits 1.
 */
export class OperatorProblem extends Error {}

/**
 * A system error (EACCES on a directory, EADDRINUSE on a port…) as one OperatorProblem line:
 * `<what> <path>: <meaning> — <fix>`. Anything else is returned as it is.
 */
export function asOperatorProblem(error: unknown, what: string, fix: string): unknown {
  const e = error as NodeJS.ErrnoException;
  const meaning = e.code ? ERRNO_MEANINGS[e.code] : undefined;
  if (!meaning) return error;
  const where = e.path ?? (e as { address?: string; port?: number }).address ?? '';
  const port = (e as { port?: number }).port;
  return new OperatorProblem(
    `${what}${where ? ` ${where}${port ? `:${port}` : ''}` : ''}: ${meaning} (${e.code}) — ${fix}`,
  );
}
