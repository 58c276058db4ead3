import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { hostLayout, type HostLayout } from '../host-layout.ts';
import {
  checkoutProblem,
  deployRelease,
  listReleases,
  releaseDeployed,
  releaseId,
} from '../install/release.ts';
import { OperatorProblem } from '../operator-problem.ts';
import { controlService } from '../service-control.ts';
import { readSettingsFile, type Settings } from '../settings-file.ts';
import { releaseMigrations, rollbackRefusal, updateRefusal, type MigrationFile } from './migration-rules.ts';
import { failureReason, logSince, markLog, waitForReady } from './readiness.ts';
import { linkedRelease, pointTo, previousLink, pruneReleases } from './release-links.ts';
import { runReleaseDatabase } from './release-process.ts';
import { readAppliedMigrations } from '../../db/migrate.ts';
import { replaceServer, supervisorRuns } from '../supervisor-reload.ts';

export const UPDATE_USAGE = `  npm run atrium -- update [--root <dir>] [--dry-run] [--rollback] [--allow-breaking] [--timeout <seconds>]`;

/**
 * `npm run atrium -- update`, run from the new checkout (built, with node_modules), as Ghost-CLI's
 * `ghost update`: deploys the checkout as a new release beside the serving one, runs its
 * migrations with its own code, points `current` at it, restarts and waits for /api/ready. If it
 * does not become ready, `current` goes back to the previous release, which is restarted, and the
 * new server's log says why (exit 1). `--rollback` goes back to the previous release on purpose.
 *
 * Migrations follow migration-rules.ts: additive ones leave the previous release able to run, so
 * going back is always possible over them; a breaking one (declared in its file) is refused
 * unless `--allow-breaking`, and then a failed update stays on the new release. A checkout older
 * than the database is refused. Both are checked from the releases' files before anything changes,
 * and again against the database itself right before migrating.
 *
 * The embedded database has one user at a time, so the server stops before the migrations (the
 * downtime is theirs plus a start). On PostgreSQL additive migrations run while the previous
 * release serves — it runs against them anyway after a rollback — and the downtime is a restart.
 */
interface UpdateOptions {
  root: string;
  dryRun: boolean;
  rollback: boolean;
  allowBreaking: boolean;
  timeoutMs: number;
}

function parseUpdateOptions(args: string[]): UpdateOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        root: { type: 'string' },
        'dry-run': { type: 'boolean' },
        rollback: { type: 'boolean' },
        'allow-breaking': { type: 'boolean' },
        timeout: { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    throw new OperatorProblem(`update: ${(error as Error).message.split('\n')[0]}`);
  }
  const timeout = Number(values.timeout ?? 120);
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw new OperatorProblem(`--timeout: "${values.timeout}" is not a number of seconds`);
  }
  return {
    root: path.resolve(values.root ?? '/'),
    dryRun: values['dry-run'] ?? false,
    rollback: values.rollback ?? false,
    allowBreaking: values['allow-breaking'] ?? false,
    timeoutMs: timeout * 1000,
  };
}

type Print = (line: string) => void;

export async function updateCommand(
  args: string[],
  checkout: string,
  print: Print = console.log,
): Promise<void> {
  process.umask(0o022);
  const o = parseUpdateOptions(args);
  const layout = hostLayout(o.root);
  if (o.root === '/' && process.getuid?.() !== 0 && !o.dryRun) {
    throw new OperatorProblem('update changes this host: run it as root (sudo npm run atrium -- update)');
  }
  const settings = readSettingsFile(layout.settingsFile);
  if (!settings) {
    throw new OperatorProblem(
      `${layout.settingsFile} does not exist — install first (npm run atrium -- install)`,
    );
  }
  const serving = linkedRelease(layout, layout.current);
  if (!serving) {
    throw new OperatorProblem(`${layout.current}: links to no deployed release — run install again`);
  }
  const step: Step = { layout, settings, o, print };
  if (o.rollback) return rollback(step, serving);

  const notBuilt = checkoutProblem(checkout);
  if (notBuilt) throw new OperatorProblem(notBuilt);
  const id = releaseId(checkout);
  print(`✓ checkout ${checkout}: release ${id}`);
  if (id === serving) {
    print(`Release ${id} is already serving: nothing to do.`);
    return;
  }
  const newMigrations = releaseMigrations(checkout);
  const fromFiles = releaseMigrations(path.join(layout.releases, serving)).map((m) => m.name);
  const refused = updateRefusal(fromFiles, { id, migrations: newMigrations }, serving, o.allowBreaking);
  if (refused) throw new OperatorProblem(`update refused: ${refused}; nothing changed`);
  const breaking = newMigrations.filter((m) => m.breaking && !fromFiles.includes(m.name));
  const embedded = !settings.DATABASE_URL;
  print(`✓ migrations: ${describePending(newMigrations, fromFiles)}`);

  if (o.dryRun) {
    if (!releaseDeployed(layout.releases, id)) print(`would deploy release ${id}`);
    if (embedded && !supervisorRuns(layout)) {
      print('would stop atrium (the embedded database has one user at a time)');
    }
    print(
      `would run the migrations of ${id}, link ${layout.current} → ${id}, restart atrium, wait for /api/ready`,
    );
    print(`(dry run: nothing changed; ${serving} is serving)`);
    return;
  }

  const deployed = deployRelease(checkout, layout.releases, id);
  print(deployed ? `✓ deployed release ${id}` : `✓ release ${id} was already deployed`);
  const newDir = path.join(layout.releases, id);

  // Additive migrations leave the previous release able to serve; a breaking one does not. The
  // embedded database has one user at a time: under the supervisor the new server runs its
  // (additive) migrations itself as it opens the database, once the old one has closed it, and
  // the gap is that opening (supervisor/supervisor.ts); without it the server stops first.
  const inServer = embedded && breaking.length === 0 && supervisorRuns(layout);
  const stopped = !inServer && (embedded || breaking.length > 0);
  if (stopped)
    stopServer(step, embedded ? 'the embedded database has one user at a time' : 'breaking migration');
  const migrated = (() => {
    if (inServer) {
      // What the serving server wrote after migrating at its start (db/migrate.ts).
      const applied = readAppliedMigrations(settings.DATA_DIR ?? layout.dataDir) ?? fromFiles;
      const refused = updateRefusal(applied, { id, migrations: newMigrations }, serving, o.allowBreaking);
      return refused ? { refused } : { applied: [] as string[] };
    }
    try {
      return runReleaseDatabase(layout, newDir, [
        'migrate',
        '--previous',
        serving,
        ...(o.allowBreaking ? ['--allow-breaking'] : []),
      ]);
    } catch (error) {
      return { failed: (error as Error).message };
    }
  })();
  if (!('applied' in migrated)) {
    if (stopped) await startAndWait(step, serving, 'start');
    // A refused update leaves the host as it found it.
    if (deployed) rmSync(newDir, { recursive: true, force: true });
    const why = 'refused' in migrated ? `update refused: ${migrated.refused}` : migrated.failed;
    throw new OperatorProblem(`${why}; release ${serving} is serving, as before`);
  }
  print(
    inServer
      ? '✓ migrations: the new server runs them as it opens the embedded database'
      : `✓ migrations run: ${migrated.applied.length === 0 ? 'none were pending' : migrated.applied.join(', ')}`,
  );

  const earlierPrevious = linkedRelease(layout, previousLink(layout));
  pointTo(layout, previousLink(layout), serving);
  pointTo(layout, layout.current, id);
  print(`✓ ${layout.current} → ${id}`);
  const outcome = stopped ? await startAndWait(step, id, 'start') : await replaceAndWait(step, id);
  if (outcome.ready) {
    for (const removed of pruneReleases(layout)) print(`✓ removed release ${removed} (keeping the last few)`);
    print(
      `Release ${id} is serving; ${serving} is kept (npm run atrium -- update --rollback goes back to it).`,
    );
    return;
  }

  const appliedBreaking = breaking.filter((m) => migrated.applied.includes(m.name));
  if (appliedBreaking.length > 0) {
    throw new OperatorProblem(
      `release ${id} did not become ready (${outcome.why}) and update does not go back to ${serving}: ` +
        `migration ${appliedBreaking[0]!.name} is breaking (${appliedBreaking[0]!.breaking}) — fix the ` +
        `release and update again, or restore the database from the backup and run update --rollback`,
    );
  }
  pointTo(layout, layout.current, serving);
  if (earlierPrevious) pointTo(layout, previousLink(layout), earlierPrevious);
  print(`↩ ${layout.current} → ${serving} (back to the previous release)`);
  if (outcome.keptServing) {
    throw new OperatorProblem(
      `release ${id} did not become ready: ${outcome.why}; release ${serving} is serving${embedded ? ' again' : ', as before'}`,
    );
  }
  const back = await startAndWait(step, serving, 'restart');
  throw new OperatorProblem(
    `release ${id} did not become ready: ${outcome.why}; ` +
      (back.ready
        ? `release ${serving} is serving again`
        : `and release ${serving} did not become ready either: ${back.why} — see ${path.join(layout.logDir, 'atrium.log')}`),
  );
}

interface Step {
  layout: HostLayout;
  settings: Settings;
  o: UpdateOptions;
  print: Print;
}

function describePending(migrations: MigrationFile[], applied: string[]): string {
  const pending = migrations.filter((m) => !applied.includes(m.name));
  if (pending.length === 0) return 'none new in this release';
  const breaking = pending.filter((m) => m.breaking).length;
  return `${pending.length} new (${breaking === 0 ? 'all additive' : `${breaking} breaking, allowed`})`;
}

function stopServer(step: Step, why: string): void {
  const result = controlService(step.layout, 'atrium', 'stop');
  if (!result.ok) throw new OperatorProblem(`${result.command}: ${result.output.split('\n').at(-1)}`);
  step.print(`✓ stopped atrium (${why})`);
}

/** keptServing: the release before went on serving while the new one failed (no gap). */
type Outcome = { ready: true } | { ready: false; why: string; keptServing?: boolean };

/**
 * The supervisor replaces the server with the release `current` now links to, on PostgreSQL
 * without a gap (operator/supervisor-reload.ts). A service that cannot reload (service files
 * from before the supervisor: run install) is restarted instead.
 */
async function replaceAndWait(step: Step, id: string): Promise<Outcome> {
  const { layout } = step;
  const mark = markLog(layout);
  const replaced = await replaceServer(layout, step.o.timeoutMs + 5_000);
  if (!replaced.ok && !replaced.sent) {
    step.print(`  ${replaced.why} (service files from before the supervisor: run install): restarting`);
    return startAndWait(step, id, 'restart');
  }
  if (replaced.ok && path.basename(replaced.release) === id) {
    const readiness = await waitForReady(layout, step.settings, step.o.timeoutMs);
    if (readiness.ready) {
      step.print(
        step.settings.DATABASE_URL
          ? `✓ release ${id} is ready, and serves without a gap (the previous one drained and stopped)`
          : `✓ release ${id} is ready (the gap was its opening of the embedded database)`,
      );
      return readiness;
    }
  }
  const lines = logSince(mark);
  const reason = failureReason(lines);
  const why = replaced.ok ? 'it did not answer /api/ready' : replaced.why;
  step.print(`✗ release ${id} did not become ready: ${why}${reason ? `: ${reason}` : ''}`);
  for (const line of lines.slice(-8)) step.print(`    ${line.slice(0, 300)}`);
  return { ready: false, why: reason ? `${why}: ${reason}` : why, keptServing: true };
}

/** (Re)starts the service on the release `current` links to and waits for /api/ready. */
async function startAndWait(step: Step, id: string, action: 'start' | 'restart'): Promise<Outcome> {
  const mark = markLog(step.layout);
  const started = controlService(step.layout, 'atrium', action);
  const readiness = started.ok
    ? await waitForReady(step.layout, step.settings, step.o.timeoutMs)
    : { ready: false as const, why: `${started.command} failed` };
  if (readiness.ready) {
    step.print(`✓ release ${id} is ready`);
    return readiness;
  }
  const lines = logSince(mark);
  const reason = failureReason(lines);
  step.print(`✗ release ${id} did not become ready: ${readiness.why}${reason ? `: ${reason}` : ''}`);
  if (lines.length > 0) {
    step.print('  Its last log lines:');
    for (const line of lines.slice(-8)) step.print(`    ${line.slice(0, 300)}`);
  }
  return { ready: false, why: reason ? `${readiness.why}: ${reason}` : readiness.why };
}

/** `--rollback`: back to the release `previous` links to, unless a breaking migration is in the way. */
async function rollback(step: Step, serving: string): Promise<void> {
  const { layout, settings, o, print } = step;
  const target = linkedRelease(layout, previousLink(layout));
  if (!target) {
    throw new OperatorProblem(`no previous release to go back to (${previousLink(layout)} is set by update)`);
  }
  const embedded = !settings.DATABASE_URL;
  if (o.dryRun) {
    print(
      `would check the database, link ${layout.current} → ${target}, restart atrium, wait for /api/ready`,
    );
    return;
  }
  const declared = [...listReleases(layout.releases), serving].flatMap((id) =>
    releaseMigrations(path.join(layout.releases, id)),
  );
  // Under the supervisor the embedded database stays open: the serving server wrote what it holds
  // when it started (db/migrate.ts).
  const inServer = embedded && supervisorRuns(layout);
  if (embedded && !inServer) stopServer(step, 'the embedded database has one user at a time');
  let refused: string | undefined;
  try {
    const answer = inServer
      ? {
          applied:
            readAppliedMigrations(settings.DATA_DIR ?? layout.dataDir) ??
            releaseMigrations(path.join(layout.releases, serving)).map((m) => m.name),
        }
      : runReleaseDatabase(layout, path.join(layout.releases, serving), ['applied']);
    if ('applied' in answer) {
      const targetMigrations = releaseMigrations(path.join(layout.releases, target));
      refused = rollbackRefusal(answer.applied, { id: target, migrations: targetMigrations }, declared);
    }
  } catch (error) {
    refused = (error as Error).message;
  }
  if (refused) {
    if (embedded && !inServer) await startAndWait(step, serving, 'start');
    throw new OperatorProblem(`rollback refused: ${refused}; release ${serving} is serving, as before`);
  }
  pointTo(layout, layout.current, target);
  pointTo(layout, previousLink(layout), serving);
  print(`✓ ${layout.current} → ${target}`);
  const outcome =
    embedded && !inServer ? await startAndWait(step, target, 'start') : await replaceAndWait(step, target);
  if (outcome.ready) {
    print(`Release ${target} is serving; ${serving} is kept (update --rollback again returns to it).`);
    return;
  }
  pointTo(layout, layout.current, serving);
  pointTo(layout, previousLink(layout), target);
  if (outcome.keptServing) {
    throw new OperatorProblem(
      `release ${target} did not become ready: ${outcome.why}; release ${serving} is serving${embedded ? ' again' : ', as before'}`,
    );
  }
  const back = await startAndWait(step, serving, 'restart');
  throw new OperatorProblem(
    `release ${target} did not become ready: ${outcome.why}; ` +
      (back.ready ? `release ${serving} is serving again` : `and ${serving} did not either: ${back.why}`),
  );
}
