import type { Config } from '../../config.ts';
import { connectDatabase } from '../../db/connect.ts';
import { dumpDatabase, formatDump } from '../../db/logical-dump.ts';
import type { HostLayout } from '../host-layout.ts';
import { localServerUrl } from '../local-server.ts';
import { OperatorProblem } from '../operator-problem.ts';
import { serviceCommand } from '../doctor/service-commands.ts';

/**
 * The database dump of a backup, from the running server (GET /api/operator/database-dump with
 * BACKUP_TOKEN, straight over loopback: the server refuses it through any proxy and to the
 * monitors' OPERATOR_TOKEN): the server holds the embedded database exclusively while it runs, so
 * only it can read it without stopping. A PostgreSQL database is read directly when the server is
 * down.
 */
export async function fetchDatabaseDump(layout: HostLayout, config: Config): Promise<string> {
  const url = localServerUrl(config, '/api/operator/database-dump');
  if (!config.backupToken) {
    // A host installed before BACKUP_TOKEN existed: install adds it and keeps everything else.
    throw new OperatorProblem(
      `Atrium: ${layout.settingsFile} has no BACKUP_TOKEN — run install again to add it (it keeps your settings), then ${serviceCommand(layout.root, 'atrium', 'restart')}`,
    );
  }
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${config.backupToken}` },
      signal: AbortSignal.timeout(30 * 60_000),
    });
  } catch (error) {
    if (config.databaseUrl) return directDump(config);
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new OperatorProblem(
      `Atrium: does not answer at ${url} (${cause}) — the embedded database is dumped by the running server: ${serviceCommand(layout.root, 'atrium', 'start')}`,
    );
  }
  if (response.status === 429) {
    const wait = response.headers.get('retry-after') ?? '60';
    throw new OperatorProblem(
      `Atrium: ${url} answered 429 — more database dumps than it gives in a minute; run it again in ${wait} s`,
    );
  }
  if (response.status !== 200) {
    throw new OperatorProblem(
      `Atrium: ${url} answered ${response.status} — restart it so it reads BACKUP_TOKEN from ${layout.settingsFile}: ${serviceCommand(layout.root, 'atrium', 'restart')}`,
    );
  }
  return response.text();
}

async function directDump(config: Config): Promise<string> {
  const db = await connectDatabase({ databaseUrl: config.databaseUrl });
  try {
    return formatDump(await dumpDatabase(db));
  } finally {
    await db.destroy();
  }
}

/**
 * Refuses while the server answers: restoring under it would mix its writes with the snapshot's
 * (PostgreSQL lets both in; the embedded database would refuse the second opener anyway).
 */
export async function requireServerStopped(layout: HostLayout, config: Config): Promise<void> {
  const url = localServerUrl(config, '/api/ready');
  const answered = await fetch(url, { signal: AbortSignal.timeout(3000) }).then(
    () => true,
    () => false,
  );
  if (answered) {
    throw new OperatorProblem(
      `Atrium: answers at ${url} — stop Atrium before restoring: ${serviceCommand(layout.root, 'atrium', 'stop')}`,
    );
  }
}
