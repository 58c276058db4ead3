import type { SubscriptionStatus } from '@atrium/contracts/subscriptions';
import Badge from 'react-bootstrap/Badge';
import { STATUS_LABELS } from './format.ts';

const LOOK: Record<SubscriptionStatus, { bg: string; text?: 'dark' }> = {
  trial: { bg: 'info', text: 'dark' },
  active: { bg: 'success' },
  past_due: { bg: 'warning', text: 'dark' },
  cancelled: { bg: 'secondary' },
};

export function SubscriptionStatusBadge({ status }: { status: SubscriptionStatus }) {
  const look = LOOK[status];
  return (
    <Badge bg={look.bg} text={look.text} pill>
      {STATUS_LABELS[status]}
    </Badge>
  );
}
