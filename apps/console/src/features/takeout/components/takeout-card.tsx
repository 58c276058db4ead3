import { TAKEOUT_DAYS, type Takeout, type TakeoutPhase } from '@atrium/contracts/takeout';
import { Download, PackageOpen } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { useLocation } from 'react-router';
import { EmptyState } from '../../../components/empty-state.tsx';
import { dateTime } from '../../../lib/format-time.ts';
import { QueryState } from '../../apps/components/query-state.tsx';
import { isRunning, useDownloadTakeout, useStartTakeout, useTakeouts } from '../api/takeout.ts';

const n = (value: number) => value.toLocaleString('en');

const STATUS: Record<Takeout['status'], { label: string; bg: string }> = {
  queued: { label: 'Waiting', bg: 'secondary' },
  running: { label: 'Running', bg: 'primary' },
  done: { label: 'Ready', bg: 'success' },
  failed: { label: 'Failed', bg: 'danger' },
};

const PHASE: Record<TakeoutPhase, string> = {
  waiting: 'Waiting to start',
  directory: 'Exporting users, groups, apps and settings',
  activity: 'Exporting the activity log',
  mailboxes: 'Exporting mailboxes',
  finished: 'Finished',
};

function size(bytes: number): string {
  if (bytes < 1024 * 1024) return `${n(Math.max(1, Math.round(bytes / 1024)))} KB`;
  return `${(bytes / 1024 / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} MB`;
}

/**
 * The mailboxes are most of the work: the bar follows them once they start; before, the directory
 * and activity are its first tenth.
 */
function percentOf(t: Takeout): number {
  if (t.status === 'done') return 100;
  if (t.phase === 'mailboxes' && t.mailboxesTotal > 0)
    return 10 + Math.round((t.mailboxesDone / t.mailboxesTotal) * 90);
  return t.phase === 'activity' ? 8 : t.phase === 'directory' ? 4 : 0;
}

function TakeoutItem({
  takeout,
  download,
}: {
  takeout: Takeout;
  download: ReturnType<typeof useDownloadTakeout>;
}) {
  const status = STATUS[takeout.status];
  const running = isRunning(takeout);
  const mine = download.variables === takeout.id;
  return (
    <li className="list-group-item px-0 py-3" data-testid="takeout">
      <div className="d-flex flex-wrap align-items-start justify-content-between gap-2 mb-2">
        <div>
          <h3 className="h6 mb-1">
            Export of {dateTime(takeout.createdAt)}{' '}
            <Badge bg={takeout.expired ? 'secondary' : status.bg} className="ms-1 align-text-bottom">
              {takeout.expired ? 'Expired' : status.label}
            </Badge>
          </h3>
          <p className="small text-body-secondary mb-0">
            Started by {takeout.startedBy}
            {takeout.status === 'done' && takeout.expiresAt && !takeout.expired
              ? ` · ${size(takeout.sizeBytes)} · can be downloaded until ${dateTime(takeout.expiresAt)}`
              : ''}
          </p>
        </div>
        {takeout.downloadable ? (
          <Button
            variant="outline-primary"
            size="sm"
            className="d-inline-flex align-items-center gap-1"
            disabled={mine && download.isPending}
            aria-busy={(mine && download.isPending) || undefined}
            onClick={() => download.mutate(takeout.id)}
          >
            <Download size={16} aria-hidden="true" />
            Download archive
          </Button>
        ) : null}
      </div>
      {running ? (
        <>
          <ProgressBar className="mb-2" style={{ height: '0.75rem' }}>
            <ProgressBar now={percentOf(takeout)} animated aria-label="Progress of the export" />
          </ProgressBar>
          <p className="small mb-0" data-testid="takeout-progress">
            {PHASE[takeout.phase]} · {n(takeout.rowsDone)} rows
            {takeout.mailboxesTotal > 0
              ? ` · ${n(takeout.mailboxesDone)} of ${n(takeout.mailboxesTotal)} mailboxes · ${n(takeout.messagesDone)} messages`
              : ''}
          </p>
        </>
      ) : null}
      {takeout.error ? <p className="small text-danger mb-0 mt-1">{takeout.error}</p> : null}
      {mine && download.error ? (
        <p className="small text-danger mb-0 mt-1" role="alert">
          The download did not start: {download.error.message}
        </p>
      ) : null}
    </li>
  );
}

const TAKEOUT_CARD_ID = 'export-everything';

/** Takeout (docs/takeout.md): export everything of the organisation as one archive. */
export function TakeoutCard() {
  const takeouts = useTakeouts();
  const start = useStartTakeout();
  const download = useDownloadTakeout();
  const [failure, setFailure] = useState<string | null>(null);
  const list = takeouts.data?.takeouts ?? [];
  const busy = list.some(isRunning);
  // The header search's "Export everything" opens /data-migration#export-everything: show the card.
  const { hash } = useLocation();
  const card = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (hash === `#${TAKEOUT_CARD_ID}`) card.current?.scrollIntoView({ block: 'start' });
  }, [hash]);
  const onStart = async () => {
    setFailure(null);
    try {
      await start.mutateAsync();
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <div className="card atrium-card mt-4" id={TAKEOUT_CARD_ID} ref={card}>
      <div className="card-body">
        <div className="d-flex flex-wrap align-items-start justify-content-between gap-2 mb-2">
          <div>
            <h2 className="h5 mb-1">Export everything</h2>
            <p className="text-body-secondary mb-0">
              One archive (.tar.gz) with every user, group, app (without secrets), domain, mail address and
              the activity log as JSON and CSV, and each mailbox as a Maildir. Admins download it while signed
              in, for {TAKEOUT_DAYS} days; each download is logged.
            </p>
          </div>
          <Button onClick={() => void onStart()} disabled={busy || start.isPending}>
            Export everything
          </Button>
        </div>
        {failure ? (
          <Alert variant="danger" onClose={() => setFailure(null)} dismissible>
            <Alert.Heading as="h3" className="h6">
              The export did not start
            </Alert.Heading>
            <p className="mb-0">{failure}</p>
          </Alert>
        ) : null}
        {!takeouts.data ? (
          <QueryState error={takeouts.error} what="the exports" onRetry={() => void takeouts.refetch()} />
        ) : list.length === 0 ? (
          <EmptyState icon={PackageOpen} title="No exports yet">
            Export everything: the archive shows here with its progress, then its download link.
          </EmptyState>
        ) : (
          <ul className="list-group list-group-flush">
            {list.map((takeout) => (
              <TakeoutItem key={takeout.id} takeout={takeout} download={download} />
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
