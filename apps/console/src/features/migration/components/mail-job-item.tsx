import type { MailMigrationJob } from '@atrium/contracts/mail-migration';
import { isFinished, type MigrationJobStatus } from '@atrium/contracts/migration';
import { ChevronDown, ChevronRight, RotateCw } from 'lucide-react';
import { useId, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { dateTime } from '../../../lib/format-time.ts';
import { formatBytes } from '../../mail/components/mailboxes.tsx';
import { MailFolders } from './mail-folders.tsx';

/**
 * Each status's badge. White text passes WCAG AA on every colour but warning's yellow (#ffc107,
 * 1.63:1), which takes dark text (about 10:1), as the other warning badges do.
 */
export const JOB_STATUS: Record<MigrationJobStatus, { label: string; bg: string; text?: 'dark' }> = {
  queued: { label: 'Waiting', bg: 'secondary' },
  running: { label: 'Running', bg: 'primary' },
  done: { label: 'Finished', bg: 'success' },
  failed: { label: 'Failed', bg: 'danger' },
  cancelled: { label: 'Cancelled', bg: 'warning', text: 'dark' },
};

const n = (value: number) => value.toLocaleString('en');

/** One mailbox copied over IMAP: messages and bytes of its latest run, and folders that failed. */
export function MailJobItem({
  job,
  onCancel,
  onRerun,
}: {
  job: MailMigrationJob;
  onCancel: (job: MailMigrationJob) => void;
  onRerun: (job: MailMigrationJob) => void;
}) {
  const status = JOB_STATUS[job.status];
  const finished = isFinished(job.status);
  // Bytes move the bar: one large message is a long stretch of the work.
  const percent = job.bytesTotal
    ? Math.round((job.bytesDone / job.bytesTotal) * 100)
    : job.status === 'done'
      ? 100
      : 0;
  const source = `${job.source.login} at ${job.source.host}`;
  const [open, setOpen] = useState(false);
  const foldersId = useId();
  return (
    <li className="list-group-item px-0 py-3" data-testid="migration-job">
      <div className="d-flex flex-wrap align-items-start justify-content-between gap-2 mb-2">
        <div className="text-break">
          <h3 className="h6 mb-1">
            Mail into {job.email}{' '}
            <Badge bg={status.bg} text={status.text} className="ms-1 align-text-bottom">
              {status.label}
            </Badge>
          </h3>
          <p className="small text-body-secondary mb-0">
            From {source} · started by {job.startedBy} on {dateTime(job.createdAt)}
            {job.runs > 1 ? ` · run ${job.runs}` : ''}
          </p>
        </div>
        <div className="d-flex gap-2">
          {!finished ? (
            <Button size="sm" variant="outline-danger" onClick={() => onCancel(job)}>
              Cancel
            </Button>
          ) : (
            <Button
              size="sm"
              variant="outline-secondary"
              className="d-inline-flex align-items-center gap-1"
              onClick={() => onRerun(job)}
            >
              <RotateCw size={16} aria-hidden="true" />
              Copy new mail
            </Button>
          )}
        </div>
      </div>
      <ProgressBar className="mb-2" style={{ height: '0.75rem' }}>
        <ProgressBar
          now={percent}
          variant={job.status === 'failed' ? 'danger' : job.status === 'cancelled' ? 'warning' : undefined}
          animated={job.status === 'running'}
          aria-label={`Progress of the mail of ${job.email}`}
          aria-valuetext={`${n(job.messagesDone)} of ${n(job.messagesTotal)} messages`}
        />
      </ProgressBar>
      <p className="small mb-0" data-testid="job-progress">
        {/* A run that ended before it counted anything (a refused login) has nothing to count. */}
        {finished && job.messagesTotal === 0
          ? job.status === 'done'
            ? 'Nothing new to copy'
            : 'No messages copied'
          : `${n(job.messagesDone)} of ${n(job.messagesTotal)} messages · ${formatBytes(job.bytesDone)} of ${formatBytes(job.bytesTotal)}`}
        {job.folderErrors > 0
          ? ` · ${n(job.folderErrors)} ${job.folderErrors === 1 ? 'folder' : 'folders'} with errors`
          : ''}
      </p>
      {job.error ? <p className="small text-danger mb-0 mt-1">{job.error}</p> : null}
      <Button
        variant="link"
        size="sm"
        className="px-0 d-inline-flex align-items-center gap-1"
        aria-expanded={open}
        aria-controls={foldersId}
        onClick={() => setOpen((o) => !o)}
      >
        {open ? <ChevronDown size={16} aria-hidden="true" /> : <ChevronRight size={16} aria-hidden="true" />}
        Folders
      </Button>
      {open ? (
        <div id={foldersId} className="mt-1">
          <MailFolders id={job.id} running={!finished} />
        </div>
      ) : null}
    </li>
  );
}
