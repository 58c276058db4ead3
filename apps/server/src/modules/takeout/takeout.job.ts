import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { TAKEOUT_DAYS } from '@atrium/contracts/takeout';
import type { FastifyBaseLogger } from 'fastify';
import { csvRow, CSV_BOM } from '../../lib/csv.ts';
import { TarWriter } from '../../lib/tar-writer.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { PermanentJobError, type JobWorker } from '../jobs/job-worker.ts';
import {
  activity,
  DIRECTORY_KINDS,
  organizationOf,
  type Cell,
  type ExportKind,
} from './takeout-directory.ts';
import { exportCalendars } from './takeout-calendars.ts';
import { countMailboxUsers, exportMailbox, mailboxUsers } from './takeout-mailboxes.ts';
import {
  endTakeout,
  expiredFiles,
  failOrphanedTakeouts,
  forgetFile,
  saveProgress,
  takeoutById,
  type TakeoutProgress,
} from './takeout.repository.ts';
import { deleteExpiredDownloadLinks } from './takeout-links.repository.ts';
import { TAKEOUT_JOB, takeoutDir, type TakeoutDeps } from './takeout.service.ts';

/** Rows per keyset page, and progress written at most this often while messages are read. */
const PAGE = 1000;
const SAVE_AFTER_MS = 2_000;

export function registerTakeoutJob(jobs: JobWorker, deps: TakeoutDeps, log: FastifyBaseLogger) {
  jobs.register(
    TAKEOUT_JOB,
    async (payload, context) => {
      const { takeoutId } = payload as { takeoutId: string };
      try {
        await runTakeout(deps, takeoutId);
      } catch (error) {
        const final = error instanceof PermanentJobError || context.job.attempts >= context.job.max_attempts;
        if (final) {
          await finishFailed(deps, takeoutId, (error as Error).message.slice(0, 500)).catch((err: unknown) =>
            log.error({ err }, 'could not mark the takeout failed'),
          );
        }
        throw error;
      }
    },
    { backoff: { baseMs: 10_000, capMs: 5 * 60_000 }, lockSeconds: 120 },
  );
  jobs.addHousekeeping(async () => {
    await failOrphanedTakeouts(deps.db);
    await removeExpiredArchives(deps);
    await deleteExpiredDownloadLinks(deps.db);
  });
}

/** Expired archives leave the disk; their rows stay (the list shows them as expired). */
export async function removeExpiredArchives(deps: TakeoutDeps): Promise<number> {
  const rows = await expiredFiles(deps.db);
  for (const row of rows) {
    await rm(path.join(deps.config.dataDir, row.file_path!), { force: true });
    await forgetFile(deps.db, row.id);
  }
  return rows.length;
}

async function runTakeout(deps: TakeoutDeps, id: string): Promise<void> {
  const { db, config } = deps;
  const row = await takeoutById(db, id);
  if (!row || (row.status !== 'queued' && row.status !== 'running')) return;
  const org = await organizationOf(db, row.organization_id);
  const dir = takeoutDir(config, row.organization_id);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Kind files are written page by page here, then streamed into the archive with their size.
  const work = path.join(dir, `${id}.work`);
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { mode: 0o700 });
  const partial = path.join(dir, `${id}.tar.gz.part`);
  const root = `atrium-takeout-${org.siteName}-${row.created_at.toISOString().slice(0, 10)}`;
  const progress: TakeoutProgress = {
    phase: 'directory',
    rowsDone: 0,
    mailboxesTotal: 0,
    mailboxesDone: 0,
    messagesDone: 0,
  };
  const notes: string[] = [];
  try {
    await saveProgress(db, id, progress);
    const gzip = createGzip({ level: 6 });
    const written = pipeline(gzip, createWriteStream(partial, { mode: 0o600 }));
    // A failed write surfaces through `written`; this keeps it from being unhandled meanwhile.
    written.catch(() => undefined);
    const tar = new TarWriter(gzip);
    await tar.directory({ name: `${root}/` });
    await tar.file({ name: `${root}/organization.json` }, `${JSON.stringify(org, null, 2)}\n`);
    for (const kind of DIRECTORY_KINDS) {
      await writeKind(deps, tar, work, root, kind, row.organization_id, id, progress);
    }
    progress.phase = 'activity';
    await saveProgress(db, id, progress);
    await writeKind(deps, tar, work, root, activity, row.organization_id, id, progress);

    progress.phase = 'mailboxes';
    if (config.mail.dictSocket) {
      progress.mailboxesTotal = await countMailboxUsers(db, row.organization_id);
      await saveProgress(db, id, progress);
      await writeMailboxes(deps, tar, root, row.organization_id, id, progress, notes);
    } else {
      notes.push(
        'Mail is not set up on this server (no MAIL_DICT_SOCKET), so the archive holds no mailboxes.',
      );
    }
    if (config.davRadicale) {
      await writeCalendars(deps, tar, root, row.organization_id, notes);
    } else {
      notes.push(
        'Calendars and contacts are not set up on this server (no DAV_RADICALE_ADDRESS), so the archive holds none.',
      );
    }
    await tar.file({ name: `${root}/README.txt` }, readme(org.name, notes));
    await tar.finish();
    await written;
    const size = (await stat(partial)).size;
    const final = path.join(dir, `${id}.tar.gz`);
    await rename(partial, final);
    await finishDone(deps, id, path.relative(config.dataDir, final), size, progress);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** One kind as `<file>.json` (an array, one row a line) and `<file>.csv`, then into the archive. */
async function writeKind(
  deps: TakeoutDeps,
  tar: TarWriter,
  work: string,
  root: string,
  kind: ExportKind,
  organizationId: string,
  id: string,
  progress: TakeoutProgress,
): Promise<void> {
  const jsonPath = path.join(work, `${kind.file}.json`);
  const csvPath = path.join(work, `${kind.file}.csv`);
  const json = await open(jsonPath, 'w', 0o600);
  const csv = await open(csvPath, 'w', 0o600);
  try {
    await json.write('[');
    await csv.write(CSV_BOM + csvRow(kind.columns));
    let last;
    let first = true;
    for (;;) {
      const page = await kind.page(deps.db, organizationId, last, PAGE);
      if (page.length === 0) break;
      let jsonChunk = '';
      let csvChunk = '';
      for (const row of page) {
        const out = Object.fromEntries(kind.columns.map((c) => [c, row[c] ?? null]));
        jsonChunk += `${first ? '' : ','}\n${JSON.stringify(out)}`;
        first = false;
        csvChunk += csvRow(kind.columns.map((c) => csvCellOf(row[c] ?? null)));
      }
      await json.write(jsonChunk);
      await csv.write(csvChunk);
      last = page.at(-1);
      progress.rowsDone += page.length;
      await saveProgress(deps.db, id, progress);
      if (page.length < PAGE) break;
    }
    await json.write('\n]\n');
  } finally {
    await json.close();
    await csv.close();
  }
  for (const file of [jsonPath, csvPath]) {
    await tar.fileFrom({ name: `${root}/${path.basename(file)}` }, file, (await stat(file)).size);
  }
}

/** Lists as `a; b`, objects (activity details) as JSON text. */
function csvCellOf(value: Cell): string | number | null {
  if (value === null) return null;
  if (Array.isArray(value)) return value.join('; ');
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return value;
}

async function writeMailboxes(
  deps: TakeoutDeps,
  tar: TarWriter,
  root: string,
  organizationId: string,
  id: string,
  progress: TakeoutProgress,
  notes: string[],
): Promise<void> {
  let savedAt = Date.now();
  const onMessage = async () => {
    progress.messagesDone++;
    if (Date.now() - savedAt >= SAVE_AFTER_MS) {
      savedAt = Date.now();
      await saveProgress(deps.db, id, progress);
    }
  };
  let afterId: string | undefined;
  for (;;) {
    const users = await mailboxUsers(deps.db, organizationId, afterId, PAGE);
    for (const user of users) {
      const outcome = await exportMailbox(deps.config, tar, `${root}/mailboxes`, user.email, onMessage);
      if (outcome.problem) notes.push(`${user.email}: ${outcome.problem}`);
      progress.mailboxesDone++;
      await saveProgress(deps.db, id, progress);
    }
    if (users.length < PAGE) return;
    afterId = users.at(-1)!.id;
  }
}

/** Every kept user's calendars (.ics) and address books (.vcf), a page of users at a time. */
async function writeCalendars(
  deps: TakeoutDeps,
  tar: TarWriter,
  root: string,
  organizationId: string,
  notes: string[],
): Promise<void> {
  const radicale = deps.config.davRadicale!;
  let afterId: string | undefined;
  for (;;) {
    const users = await mailboxUsers(deps.db, organizationId, afterId, PAGE);
    for (const user of users) {
      try {
        await exportCalendars(radicale, tar, root, user);
      } catch (error) {
        // Radicale not answering fails the attempt (the job tries again); one account's refusal is a note.
        if (error instanceof TypeError) throw error;
        notes.push(`${user.email}: calendars and contacts not read: ${(error as Error).message}`);
      }
    }
    if (users.length < PAGE) return;
    afterId = users.at(-1)!.id;
  }
}

function readme(organization: string, notes: string[]): string {
  return [
    `Everything of ${organization} in Atrium, exported ${new Date().toISOString()}.`,
    '',
    'organization.json          the organisation',
    'users.json / .csv          every user (no passwords), with their groups',
    'groups.json / .csv         every group; group-members.json / .csv: who is in which',
    'apps.json / .csv           installed apps, without their client secrets',
    'domains.json / .csv        domains with their DKIM public keys (private keys stay on the server)',
    'mail-addresses.json / .csv every address mail arrives at: users, aliases, groups, catch-alls',
    'activity.json / .csv       the activity log, oldest first',
    'mailboxes/<address>/Maildir  each mailbox as a Maildir (Maildir++ folders, flags in file names)',
    'calendars/<address>/<name>.ics  each calendar, every event in one iCalendar file',
    'contacts/<address>/<name>.vcf   each address book, every contact in one vCard file',
    '',
    'IMAP keywords (flags other than Seen, Answered, Flagged, Deleted, Draft) are not kept.',
    ...(notes.length ? ['', 'Notes:', ...notes.map((n) => `- ${n}`)] : []),
    '',
  ].join('\n');
}

async function finishDone(
  deps: TakeoutDeps,
  id: string,
  filePath: string,
  sizeBytes: number,
  progress: TakeoutProgress,
): Promise<void> {
  await saveProgress(deps.db, id, progress);
  const expiresAt = new Date(Date.now() + TAKEOUT_DAYS * 24 * 3600 * 1000);
  await deps.db.transaction().execute(async (trx) => {
    const ended = await endTakeout(trx, id, { status: 'done', filePath, sizeBytes, expiresAt });
    if (!ended) return;
    await recordActivity(trx, {
      organizationId: ended.organization_id,
      actor: null,
      action: 'takeout.finished',
      target: { type: 'takeout', id, label: 'Export of everything' },
      details: { bytes: sizeBytes, rows: progress.rowsDone, messages: progress.messagesDone },
    });
  });
}

async function finishFailed(deps: TakeoutDeps, id: string, error: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const ended = await endTakeout(trx, id, { status: 'failed', error });
    if (!ended) return;
    await recordActivity(trx, {
      organizationId: ended.organization_id,
      actor: null,
      action: 'takeout.failed',
      target: { type: 'takeout', id, label: 'Export of everything' },
      details: { error },
    });
  });
}
