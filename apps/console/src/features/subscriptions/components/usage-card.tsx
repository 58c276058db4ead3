import type { Subscription } from '@atrium/contracts/subscriptions';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { SectionCard } from '../../../components/section-card.tsx';

function UsageBar({ label, used, of, testId }: { label: string; used: number; of: number; testId: string }) {
  const percent = of > 0 ? Math.min(100, Math.round((used / of) * 100)) : 100;
  const full = used >= of;
  return (
    <div className="mb-3" data-testid={testId}>
      <div className="d-flex justify-content-between align-items-baseline mb-1">
        <span className="fw-semibold">{label}</span>
        <span className="text-body-secondary">
          {used} of {of} used
        </span>
      </div>
      {/* The bar inside carries role="progressbar", so its name goes on it, not on the track. */}
      <ProgressBar style={{ height: '0.6rem' }}>
        <ProgressBar
          now={percent}
          variant={full ? 'danger' : percent >= 80 ? 'warning' : 'primary'}
          aria-label={`${label}: ${used} of ${of} used`}
        />
      </ProgressBar>
    </div>
  );
}

/** Seats used of bought (every user holds one, invited and suspended ones too) and domains. */
export function UsageCard({ subscription }: { subscription: Subscription }) {
  const { seats, seatsUsed } = subscription;
  return (
    <SectionCard title="Usage" className="mb-4">
      <UsageBar label="Seats" used={seatsUsed} of={seats} testId="seats-usage" />
      <UsageBar
        label="Domains"
        used={subscription.domainsUsed}
        of={subscription.maxDomains}
        testId="domains-usage"
      />
      <p className="small text-body-secondary mb-0">
        Every user holds a seat, invited and suspended users too.
        {seatsUsed >= seats ? ' All seats are in use: add seats below to add more users.' : ''}
      </p>
    </SectionCard>
  );
}
