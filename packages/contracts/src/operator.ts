import { z } from 'zod';

/**
 * The operator status endpoint (`GET /api/operator/status`), for monitoring systems: the same
 * checks as `npm run atrium -- doctor` that the server process can run, each a line an operator
 * can act on. 200 when every check passes (warnings included), 503 otherwise, so a monitor needs
 * only the status.
 */
export const operatorCheckSchema = z.object({
  name: z.string(),
  ok: z.boolean(),
  /** Passes, with something to look at (no mail yet on a fresh host); never makes the answer 503. */
  warning: z.boolean(),
  detail: z.string(),
  /** The command or record that fixes a failing check, or what to do next for a warning; else null. */
  fix: z.string().nullable(),
});
export type OperatorCheck = z.infer<typeof operatorCheckSchema>;

export const operatorStatusSchema = z.object({
  ok: z.boolean(),
  checkedAt: z.string(),
  checks: z.array(operatorCheckSchema),
});
export type OperatorStatus = z.infer<typeof operatorStatusSchema>;
