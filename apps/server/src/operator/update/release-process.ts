import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SERVICE_USER, type HostLayout } from '../host-layout.ts';
import { OperatorProblem } from '../operator-problem.ts';

export const RELEASE_DATABASE_SCRIPT = 'apps/server/src/operator/update/release-database.ts';

export type ReleaseDatabaseAnswer = { applied: string[] } | { refused: string };

/**
 * Runs release-database.ts with a release's own node and code, as the service user when update
 * runs as root (so the embedded database's files keep their owner), with the settings file as its
 * only environment: node's --env-file does not override variables already set, so the operator's
 * shell (or a test runner's NODE_ENV) must not reach it.
 */
export function runReleaseDatabase(
  layout: HostLayout,
  releaseDir: string,
  args: string[],
): ReleaseDatabaseAnswer {
  const script = path.join(releaseDir, RELEASE_DATABASE_SCRIPT);
  if (!existsSync(script)) {
    throw new OperatorProblem(
      `${script} does not exist: release ${path.basename(releaseDir)} predates update`,
    );
  }
  const command = [
    path.join(releaseDir, 'node_modules', '.bin', 'node'),
    `--env-file=${layout.settingsFile}`,
    script,
    ...args,
  ];
  const asService = process.getuid?.() === 0 ? ['runuser', '-u', SERVICE_USER, '--', ...command] : command;
  const run = spawnSync(asService[0]!, asService.slice(1), {
    cwd: releaseDir,
    encoding: 'utf8',
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: layout.stateDir },
    timeout: 30 * 60_000,
  });
  const answer = run.stdout?.trim().split('\n').at(-1);
  if ((run.status === 0 || run.status === 2) && answer?.startsWith('{')) {
    return JSON.parse(answer) as ReleaseDatabaseAnswer;
  }
  const why = (run.stderr?.trim().split('\n').at(-1) || run.error?.message || `exit ${run.status}`).trim();
  throw new OperatorProblem(`the database of release ${path.basename(releaseDir)}: ${why}`);
}
