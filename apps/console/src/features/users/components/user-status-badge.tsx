import type { UserStatus } from '@atrium/contracts/users';
import Badge from 'react-bootstrap/Badge';

const LOOK: Record<UserStatus, { bg: string; text?: 'dark'; label: string }> = {
  active: { bg: 'success', label: 'Active' },
  invited: { bg: 'info', text: 'dark', label: 'Invited' },
  suspended: { bg: 'secondary', label: 'Suspended' },
};

export function UserStatusBadge({ status }: { status: UserStatus }) {
  const look = LOOK[status];
  return (
    <Badge bg={look.bg} text={look.text} pill>
      {look.label}
    </Badge>
  );
}

export const statusLabel = (status: UserStatus) => LOOK[status].label;
