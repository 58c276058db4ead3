import path from 'node:path';
import { TAKEOUT_LINK_SECONDS, type Takeout, type TakeoutDownloadLink } from '@atrium/contracts/takeout';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';
import { AppError, conflict, notFound } from '../../lib/errors.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import type { JobWorker } from '../jobs/job-worker.ts';
import { enqueue } from '../jobs/jobs.repository.ts';
import type { Actor } from '../organizations/actor.ts';
import { actorLabel } from '../users/users.repository.ts';
import { insertDownloadLink, useDownloadLink } from './takeout-links.repository.ts';
import { findTakeout, listTakeouts, runningTakeout, type TakeoutRow } from './takeout.repository.ts';

export const TAKEOUT_JOB = 'takeout.export';
const LIST_LIMIT = 20;
const TARGET_LABEL = 'Export of everything';

export interface TakeoutDeps {
  db: Db;
  config: Config;
}

/** Where an organisation's archives lie: `DATA_DIR/takeouts/<organisation id>/`. */
export const takeoutDir = (config: Config, organizationId: string) =>
  path.join(config.dataDir, 'takeouts', organizationId);

export class TakeoutExpired extends AppError {
  constructor() {
    super(410, 'expired', 'This export has expired and its archive is gone. Start a new export.');
  }
}

/** A download link that is missing, used, past its minute, or another session's. */
export class TakeoutLinkInvalid extends AppError {
  constructor() {
    super(
      403,
      'download_link_invalid',
      'This download link works only once, for a minute, in the browser that asked for it. Download the archive again from Data Migration.',
    );
  }
}

export function toTakeout(row: TakeoutRow, now = new Date()): Takeout {
  const expired = row.expires_at !== null && row.expires_at <= now;
  return {
    id: row.id,
    status: row.status,
    phase: row.phase,
    rowsDone: row.rows_done,
    mailboxesTotal: row.mailboxes_total,
    mailboxesDone: row.mailboxes_done,
    messagesDone: row.messages_done,
    sizeBytes: Number(row.size_bytes),
    startedBy: row.started_by_label,
    createdAt: row.created_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
    expiresAt: row.expires_at?.toISOString() ?? null,
    expired,
    downloadable: row.status === 'done' && !expired,
    error: row.error,
  };
}

export async function listOrganizationTakeouts(db: Db, organizationId: string): Promise<Takeout[]> {
  return (await listTakeouts(db, organizationId, LIST_LIMIT)).map((r) => toTakeout(r));
}

/** Starts an export, one at a time per organisation (a unique index holds it under a race). */
export async function startTakeout(deps: TakeoutDeps, jobs: JobWorker, actor: Actor): Promise<Takeout> {
  const { db } = deps;
  const running = () =>
    conflict('An export of this organisation is already running', undefined, 'already_running');
  if (await runningTakeout(db, actor.organizationId)) throw running();
  const label = await actorLabel(db, actor.organizationId, actor.userId);
  let row: TakeoutRow;
  try {
    row = await db.transaction().execute(async (trx) => {
      const created = await trx
        .insertInto('takeouts')
        .values({ organization_id: actor.organizationId, started_by: actor.userId, started_by_label: label })
        .returningAll()
        .executeTakeFirstOrThrow();
      const jobId = await enqueue(trx, {
        kind: TAKEOUT_JOB,
        payload: { takeoutId: created.id },
        organizationId: actor.organizationId,
        maxAttempts: 2,
      });
      await recordActivity(trx, {
        organizationId: actor.organizationId,
        actor: { userId: actor.userId, label },
        action: 'takeout.started',
        target: { type: 'takeout', id: created.id, label: TARGET_LABEL },
        ip: actor.ip,
      });
      return trx
        .updateTable('takeouts')
        .set({ job_id: jobId })
        .where('id', '=', created.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw running();
    throw error;
  }
  jobs.wake();
  return toTakeout(row);
}

/** A finished export of the organisation whose archive is still there, or why it cannot be had. */
async function downloadableTakeout(deps: TakeoutDeps, organizationId: string, id: string) {
  const row = await findTakeout(deps.db, organizationId, id);
  if (!row) throw notFound('The export');
  if (row.status !== 'done') throw conflict('This export is not finished', undefined, 'not_finished');
  if ((row.expires_at && row.expires_at <= new Date()) || !row.file_path) throw new TakeoutExpired();
  return { ...row, file_path: row.file_path };
}

/**
 * A link that downloads the archive once, within TAKEOUT_LINK_SECONDS, with the console session
 * that asked for it (issue 38): the archive holds every mailbox, so a URL seen in a browser's
 * history, a proxy's log or over a shoulder fetches nothing, and each download is a click of a
 * signed-in admin, logged.
 */
export async function createDownloadLink(
  deps: TakeoutDeps,
  actor: Actor,
  sessionId: string,
  id: string,
): Promise<TakeoutDownloadLink> {
  await downloadableTakeout(deps, actor.organizationId, id);
  const token = randomToken();
  const expiresAt = new Date(Date.now() + TAKEOUT_LINK_SECONDS * 1000);
  await insertDownloadLink(deps.db, {
    organizationId: actor.organizationId,
    takeoutId: id,
    sessionId,
    tokenHash: sha256(token),
    expiresAt,
  });
  return {
    url: `/api/takeout/${id}/download?${new URLSearchParams({ link: token })}`,
    expiresAt: expiresAt.toISOString(),
  };
}

/**
 * The archive of a finished export of the actor's organisation, for a link this session made and
 * has not used; logs the download. Another organisation's export is a 404 whatever the link.
 */
export async function takeoutForDownload(
  deps: TakeoutDeps,
  actor: Actor,
  sessionId: string,
  id: string,
  link: string | undefined,
): Promise<{ file: string; name: string; size: number }> {
  const row = await downloadableTakeout(deps, actor.organizationId, id);
  const used =
    link !== undefined &&
    (await useDownloadLink(deps.db, {
      organizationId: actor.organizationId,
      takeoutId: id,
      sessionId,
      tokenHash: sha256(link),
    }));
  if (!used) throw new TakeoutLinkInvalid();
  const label = await actorLabel(deps.db, actor.organizationId, actor.userId);
  await recordActivity(deps.db, {
    organizationId: actor.organizationId,
    actor: { userId: actor.userId, label },
    action: 'takeout.downloaded',
    target: { type: 'takeout', id, label: TARGET_LABEL },
    ip: actor.ip,
  });
  const site = await deps.db
    .selectFrom('organizations')
    .select('site_name')
    .where('id', '=', actor.organizationId)
    .executeTakeFirstOrThrow();
  return {
    file: path.join(deps.config.dataDir, row.file_path),
    name: `atrium-takeout-${site.site_name}-${row.created_at.toISOString().slice(0, 10)}.tar.gz`,
    size: Number(row.size_bytes),
  };
}
