import { readdirSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { describeAge, fail, pass, type Check } from './check.ts';
import { serviceCommand, serviceLog } from './service-commands.ts';

/** A query that takes longer than this counts as "does not answer" (the readiness probe's bound). */
const QUERY_TIMEOUT_MS = 3_000;
/** A queued job this late (or a running one whose lock lapsed this long ago) is overdue. */
const OVERDUE_AFTER_MS = 5 * 60_000;

const MIGRATIONS_DIR = path.join(import.meta.dirname, '../../db/migrations');

export interface DatabaseCheckDeps {
  db: Db;
  config: Pick<Config, 'databaseUrl' | 'dataDir'>;
  /** `/` on a host; what fixes name (the init script below DIR under `--root DIR`). */
  root?: string;
}

function withDeadline<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${QUERY_TIMEOUT_MS / 1000} s`)),
      QUERY_TIMEOUT_MS,
    );
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

const where = (config: DatabaseCheckDeps['config']) =>
  config.databaseUrl
    ? `PostgreSQL at ${new URL(config.databaseUrl).host}`
    : `the embedded database in ${path.join(config.dataDir, 'pgdata')}`;

/** The migrations this release has, by the name Kysely's FileMigrationProvider gives them. */
export function releaseMigrations(dir = MIGRATIONS_DIR): string[] {
  return readdirSync(dir)
    .filter((file) => /\.(ts|js|mjs)$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => file.replace(/\.(ts|js|mjs)$/, ''))
    .sort();
}

/** Database reachable, and its schema exactly this release's (start-up migrates; nothing here does). */
export function databaseChecks(deps: DatabaseCheckDeps): Check[] {
  const root = deps.root ?? '/';
  return [
    {
      name: 'Database',
      async run() {
        try {
          await withDeadline(deps.db.selectFrom('organizations').select('id').limit(1).execute());
          return pass(`${where(deps.config)} answers`);
        } catch (error) {
          return fail(
            `${where(deps.config)} does not answer (${(error as Error).message.split('\n')[0]})`,
            deps.config.databaseUrl
              ? 'check that PostgreSQL runs and DATABASE_URL is right (systemctl status postgresql)'
              : `${serviceCommand(root, 'atrium', 'restart')}; if it does not start, ${serviceLog(root, 'atrium')}`,
          );
        }
      },
    },
    {
      name: 'Migrations',
      async run() {
        const { rows } = await withDeadline(
          sql<{ name: string }>`select name from kysely_migration order by name`.execute(deps.db),
        );
        const applied = new Set(rows.map((r) => r.name));
        const known = releaseMigrations();
        const pending = known.filter((name) => !applied.has(name));
        const unknown = [...applied].filter((name) => !known.includes(name));
        if (unknown.length > 0) {
          return fail(
            `the database has ${unknown.length} migration(s) this release does not have (${unknown.join(', ')}): it was migrated by a newer release`,
            'deploy that newer release again (npm run atrium -- update), or restore the database from before it',
          );
        }
        if (pending.length > 0) {
          return fail(
            `${pending.length} migration(s) of this release not applied (${pending.join(', ')})`,
            `${serviceCommand(root, 'atrium', 'restart')} (Atrium migrates at start)`,
          );
        }
        return pass(`all ${known.length} migrations applied`);
      },
    },
    {
      name: 'Job queue',
      async run() {
        const overdueBefore = new Date(Date.now() - OVERDUE_AFTER_MS);
        const row = await withDeadline(
          deps.db
            .selectFrom('jobs')
            .select((eb) => [
              eb.fn.countAll<number>().filterWhere('status', '=', 'failed').as('failed'),
              eb.fn
                .countAll<number>()
                .filterWhere((w) =>
                  w.or([
                    w.and([w('status', '=', 'queued'), w('run_at', '<', overdueBefore)]),
                    w.and([w('status', '=', 'running'), w('locked_until', '<', overdueBefore)]),
                  ]),
                )
                .as('overdue'),
              eb.fn
                .min<Date | null>('run_at')
                .filterWhere((w) =>
                  w.or([
                    w.and([w('status', '=', 'queued'), w('run_at', '<', overdueBefore)]),
                    w.and([w('status', '=', 'running'), w('locked_until', '<', overdueBefore)]),
                  ]),
                )
                .as('oldest_overdue'),
            ])
            .executeTakeFirstOrThrow(),
        );
        const failed = Number(row.failed);
        const overdue = Number(row.overdue);
        if (failed === 0 && overdue === 0) return pass('no failed or overdue jobs');
        const parts: string[] = [];
        let fix = '';
        if (overdue > 0) {
          const age = describeAge(Date.now() - new Date(row.oldest_overdue!).getTime());
          parts.push(`${overdue} overdue (the oldest due ${age} ago)`);
          fix = `${serviceCommand(root, 'atrium', 'restart')} (its worker runs the queue); ${serviceLog(root, 'atrium')}`;
        }
        if (failed > 0) {
          const latest = await deps.db
            .selectFrom('jobs')
            .select(['kind', 'last_error', 'updated_at'])
            .where('status', '=', 'failed')
            .orderBy('updated_at', 'desc')
            .limit(1)
            .executeTakeFirstOrThrow();
          const error = (latest.last_error ?? 'no error recorded').split('\n')[0]!.slice(0, 200);
          parts.push(
            `${failed} failed, the latest a ${latest.kind} job ${describeAge(Date.now() - new Date(latest.updated_at).getTime())} ago: ${error}`,
          );
          fix ||= `mend what the error names (${serviceLog(root, 'atrium')}); failed jobs leave this count 7 days after they failed`;
        }
        return fail(parts.join('; '), fix);
      },
    },
  ];
}
