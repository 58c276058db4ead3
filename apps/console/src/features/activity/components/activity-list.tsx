import type { ActivityEntry } from '@atrium/contracts/activity';
import { dateTime, timeAgo } from '../../../lib/format-time.ts';
import { describeAction, kindLabel } from './describe-action.ts';

function Target({ entry }: { entry: ActivityEntry }) {
  if (!entry.target) return <span className="text-body-secondary">—</span>;
  return (
    <>
      <span className="text-break">{entry.target.label ?? entry.target.id}</span>
      <span className="d-block small text-body-secondary">{entry.target.type}</span>
    </>
  );
}

/**
 * Entries as a table from 768 px up, and as a stacked list below, so a phone shows every field
 * without scrolling sideways.
 */
export function ActivityList({ entries }: { entries: ActivityEntry[] }) {
  return (
    <>
      <div className="table-responsive d-none d-md-block">
        <table className="table align-middle mb-0" data-testid="activity-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Object</th>
              <th scope="col">From</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-testid="activity-row">
                <td className="text-nowrap">
                  <time dateTime={entry.createdAt} title={timeAgo(entry.createdAt)}>
                    {dateTime(entry.createdAt)}
                  </time>
                </td>
                <td className="text-nowrap">{entry.actor.label}</td>
                <td title={kindLabel(entry.action)}>{describeAction(entry.action)}</td>
                <td>
                  <Target entry={entry} />
                </td>
                <td className="text-body-secondary small">{entry.ip ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ul className="list-unstyled mb-0 d-md-none">
        {entries.map((entry) => (
          <li key={entry.id} className="border-bottom py-3 px-3" data-testid="activity-item">
            <div className="d-flex justify-content-between gap-2">
              <span className="fw-medium">{describeAction(entry.action)}</span>
              <time
                className="small text-body-secondary text-nowrap"
                dateTime={entry.createdAt}
                title={dateTime(entry.createdAt)}
              >
                {timeAgo(entry.createdAt)}
              </time>
            </div>
            <div className="small">
              {entry.actor.label}
              {entry.target ? (
                <>
                  {' · '}
                  <span className="text-break">{entry.target.label ?? entry.target.id}</span>
                </>
              ) : null}
            </div>
            {entry.ip ? <div className="small text-body-secondary">{entry.ip}</div> : null}
          </li>
        ))}
      </ul>
    </>
  );
}
