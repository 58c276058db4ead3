import { History } from 'lucide-react';
import { Link } from 'react-router';
import { timeAgo, dateTime } from '../../../lib/format-time.ts';
import { paths } from '../../../lib/paths.ts';
import { useRecentActivity } from '../api/get-activity.ts';
import { describeAction } from './describe-action.ts';
import { RetryButton } from '../../../components/load-error.tsx';

/**
 * The dashboard's "Recent activity" card: the newest entries of the organisation's log and a
 * link to the full log. Admins only (the API refuses anyone else).
 */
export function RecentActivity({ count = 6 }: { count?: number }) {
  const recent = useRecentActivity(count);
  const entries = recent.data?.items ?? [];
  return (
    <section
      className="card atrium-card h-100"
      aria-labelledby="recent-activity-title"
      data-testid="recent-activity"
    >
      <div className="card-header bg-transparent border-0 pt-3 px-4 d-flex justify-content-between align-items-center">
        <h2 className="h6 mb-0" id="recent-activity-title">
          Recent activity
        </h2>
        <Link to={paths.activity()} className="small text-decoration-none">
          View all
        </Link>
      </div>
      <div className="card-body pt-2 px-4">
        {recent.isPending ? (
          <p className="text-body-secondary small mb-0" role="status">
            Loading…
          </p>
        ) : recent.isError ? (
          <div role="alert">
            <p className="text-danger small mb-2">
              Recent activity could not be loaded: {recent.error.message}
            </p>
            <RetryButton onRetry={() => void recent.refetch()} />
          </div>
        ) : entries.length === 0 ? (
          <p className="text-body-secondary small mb-0">
            <History size={16} className="me-1" aria-hidden="true" />
            Nothing has happened yet. Changes to users, domains and apps will be listed here.
          </p>
        ) : (
          <ul className="list-unstyled mb-0">
            {entries.map((entry) => (
              <li key={entry.id} className="py-2 border-bottom small">
                <div className="fw-medium">
                  {describeAction(entry.action)}
                  {entry.target?.label ? (
                    <span className="fw-normal text-break">: {entry.target.label}</span>
                  ) : null}
                </div>
                <div className="text-body-secondary">
                  {entry.actor.label} ·{' '}
                  <time dateTime={entry.createdAt} title={dateTime(entry.createdAt)}>
                    {timeAgo(entry.createdAt)}
                  </time>
                </div>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
