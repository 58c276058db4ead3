import type { DomainState } from '@atrium/contracts/domains';
import { DOMAIN_RECHECK_DAYS } from '@atrium/contracts/domains';
import Badge from 'react-bootstrap/Badge';

const LOOK: Record<DomainState, { label: string; bg: string; text?: 'dark'; title: string }> = {
  pending: {
    label: 'Pending',
    bg: 'warning',
    text: 'dark',
    title: `Waiting for its TXT record; checked in the background for ${DOMAIN_RECHECK_DAYS} days`,
  },
  verified: { label: 'Verified', bg: 'success', title: 'Ownership proven with the TXT record' },
  failed: {
    label: 'Not verified',
    bg: 'danger',
    title: `Its TXT record was not found within ${DOMAIN_RECHECK_DAYS} days; press Verify to try again`,
  },
};

export function DomainStateBadge({ state }: { state: DomainState }) {
  const look = LOOK[state];
  return (
    <Badge bg={look.bg} {...(look.text ? { text: look.text } : {})} title={look.title}>
      {look.label}
    </Badge>
  );
}
