import type { MailMigrationJob } from '@atrium/contracts/mail-migration';
import { isFinished, USER_IMPORT_FORMAT_LABELS, type UserImportJob } from '@atrium/contracts/migration';
import { Download, History } from 'lucide-react';
import { useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { EmptyState } from '../../../components/empty-state.tsx';
import { QueryState } from '../../apps/components/query-state.tsx';
import { dateTime } from '../../../lib/format-time.ts';
import { serverPaths } from '../../../lib/paths.ts';
import { useCancelImport, useMigrationJobs } from '../api/migration.ts';
import { useCancelMailMigration } from '../api/mail-migration.ts';
import { JOB_STATUS as STATUS, MailJobItem } from './mail-job-item.tsx';
import { RerunDialog } from './rerun-dialog.tsx';

const n = (value: number) => value.toLocaleString('en');

/** A user import; mail migrations have their own item (mail-job-item.tsx). */
function UserImportItem({ job, onCancel }: { job: UserImportJob; onCancel: (job: UserImportJob) => void }) {
  const status = STATUS[job.status];
  const percent = job.totalRows ? Math.round((job.rowsDone / job.totalRows) * 100) : 0;
  const finished = isFinished(job.status);
  return (
    <li className="list-group-item px-0 py-3" data-testid="migration-job">
      <div className="d-flex flex-wrap align-items-start justify-content-between gap-2 mb-2">
        <div className="text-break">
          <h3 className="h6 mb-1">
            Users from {job.fileName}{' '}
            <Badge bg={status.bg} text={status.text} className="ms-1 align-text-bottom">
              {status.label}
            </Badge>
          </h3>
          <p className="small text-body-secondary mb-0">
            {USER_IMPORT_FORMAT_LABELS[job.format]} · started by {job.startedBy} on {dateTime(job.createdAt)}
          </p>
        </div>
        <div className="d-flex gap-2">
          {!finished ? (
            <Button size="sm" variant="outline-danger" onClick={() => onCancel(job)}>
              Cancel
            </Button>
          ) : null}
          <a
            href={serverPaths.userImportResult(job.id)}
            className="btn btn-sm btn-outline-secondary d-inline-flex align-items-center gap-1"
            download
          >
            <Download size={16} aria-hidden="true" />
            Result CSV
          </a>
        </div>
      </div>
      {/* The bar inside carries role="progressbar", so its name goes on it, not on the track. */}
      <ProgressBar className="mb-2" style={{ height: '0.75rem' }}>
        <ProgressBar
          now={percent}
          variant={job.status === 'failed' ? 'danger' : job.status === 'cancelled' ? 'warning' : undefined}
          animated={job.status === 'running'}
          aria-label={`Progress of ${job.fileName}`}
          aria-valuetext={`${n(job.rowsDone)} of ${n(job.totalRows)} rows`}
        />
      </ProgressBar>
      <p className="small mb-0" data-testid="job-progress">
        {n(job.rowsDone)} of {n(job.totalRows)} rows · {n(job.counts.create)} created · {n(job.counts.update)}{' '}
        updated · {n(job.counts.unchanged)} unchanged · {n(job.counts.errors)}{' '}
        {job.counts.errors === 1 ? 'error' : 'errors'}
      </p>
      {job.error ? <p className="small text-danger mb-0 mt-1">{job.error}</p> : null}
    </li>
  );
}

export function MigrationJobsCard() {
  const jobs = useMigrationJobs();
  const cancelImport = useCancelImport();
  const cancelMail = useCancelMailMigration();
  const [cancelling, setCancelling] = useState<UserImportJob | MailMigrationJob | null>(null);
  const [rerunning, setRerunning] = useState<MailMigrationJob | null>(null);
  const cancel = cancelling?.kind === 'mail' ? cancelMail : cancelImport;
  const what = cancelling?.kind === 'mail' ? `the migration into ${cancelling.email}` : 'the import';
  const list = jobs.data?.jobs ?? [];
  return (
    <div className="card atrium-card">
      <div className="card-body">
        <h2 className="h5 mb-1">Migration jobs</h2>
        <p className="text-body-secondary mb-2">Running and past jobs, newest first.</p>
        {!jobs.data ? (
          <QueryState error={jobs.error} what="the migration jobs" onRetry={() => void jobs.refetch()} />
        ) : list.length === 0 ? (
          <EmptyState icon={History} title="No migration jobs yet">
            Import users or migrate a mailbox above: the job shows here with its progress.
          </EmptyState>
        ) : (
          <ul className="list-group list-group-flush">
            {list.map((job) =>
              job.kind === 'mail' ? (
                <MailJobItem key={job.id} job={job} onCancel={setCancelling} onRerun={setRerunning} />
              ) : (
                <UserImportItem key={job.id} job={job} onCancel={setCancelling} />
              ),
            )}
          </ul>
        )}
      </div>
      <ConfirmDialog
        show={cancelling !== null}
        title={
          cancelling?.kind === 'mail'
            ? `Cancel the migration into ${cancelling.email}?`
            : `Cancel the import of ${cancelling?.fileName ?? ''}?`
        }
        confirmLabel={cancelling?.kind === 'mail' ? 'Cancel the migration' : 'Cancel the import'}
        pendingLabel="Cancelling…"
        cancelLabel="Keep going"
        pending={cancel.isPending}
        error={cancel.error}
        errorTitle={`${what.charAt(0).toUpperCase()}${what.slice(1)} was not cancelled`}
        onConfirm={() => {
          if (!cancelling) return;
          const done = { onSuccess: () => setCancelling(null) };
          if (cancelling.kind === 'mail') cancelMail.mutate(cancelling.id, done);
          else cancelImport.mutate(cancelling.id, done);
        }}
        onCancel={() => {
          setCancelling(null);
          cancelImport.reset();
          cancelMail.reset();
        }}
      >
        {cancelling?.kind === 'mail'
          ? 'The migration stops after the messages it is copying now. The mail already copied stays; the password is erased.'
          : 'The import stops after the rows it is writing now. The users already imported stay; the other rows are not imported.'}
      </ConfirmDialog>
      <RerunDialog job={rerunning} onClose={() => setRerunning(null)} />
    </div>
  );
}
