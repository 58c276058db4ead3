import type { Plan, SubscriptionHistoryEntry } from '@atrium/contracts/subscriptions';
import { SectionCard } from '../../../components/section-card.tsx';
import { dateTime } from '../../../lib/format-time.ts';
import { plural, STATUS_LABELS } from './format.ts';

/** "Business → Enterprise, 10 → 50 seats": what changed, in words. */
export function describeChange(entry: SubscriptionHistoryEntry, titleOf: (key: string) => string): string {
  const { from, to } = entry;
  if (!from) {
    return `Started on ${titleOf(to.planKey)}, ${plural(to.seats, 'seat')}, ${STATUS_LABELS[to.status].toLowerCase()}`;
  }
  const parts: string[] = [];
  if (from.planKey !== to.planKey) parts.push(`${titleOf(from.planKey)} → ${titleOf(to.planKey)}`);
  if (from.seats !== to.seats) parts.push(`${from.seats} → ${plural(to.seats, 'seat')}`);
  if (from.status !== to.status) parts.push(`${STATUS_LABELS[from.status]} → ${STATUS_LABELS[to.status]}`);
  return parts.length > 0 ? parts.join(', ') : 'Dates renewed';
}

/** Every change, newest first: when, who (an admin, the operator or the system) and what. */
export function SubscriptionHistory({
  history,
  plans,
}: {
  history: SubscriptionHistoryEntry[];
  plans: Plan[];
}) {
  const titleOf = (key: string) => plans.find((p) => p.key === key)?.title ?? key;
  return (
    <SectionCard title="History" className="mb-4">
      {history.length === 0 ? (
        <p className="text-body-secondary mb-0">No changes yet.</p>
      ) : (
        <ul className="list-group list-group-flush" aria-label="Subscription history">
          {history.map((entry) => (
            <li key={entry.id} className="list-group-item px-0">
              <span className="d-block">{describeChange(entry, titleOf)}</span>
              <span className="d-block small text-body-secondary">
                {entry.actorLabel}
                {entry.source === 'console' ? ' (admin)' : ''} · {dateTime(entry.createdAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </SectionCard>
  );
}
