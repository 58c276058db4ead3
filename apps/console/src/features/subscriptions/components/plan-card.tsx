import type { Subscription } from '@atrium/contracts/subscriptions';
import { Check } from 'lucide-react';
import Card from 'react-bootstrap/Card';
import { formatDay, planFeatures, priceOf } from './format.ts';
import { SubscriptionStatusBadge } from './subscription-status-badge.tsx';

/** The current plan: its name, status, price, what it includes and its dates. */
export function PlanCard({ subscription }: { subscription: Subscription }) {
  const { plan, status } = subscription;
  return (
    <Card className="atrium-card mb-4" data-testid="current-plan">
      <Card.Body>
        <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
          <Card.Title as="h2" className="h5 mb-0">
            {plan.title} plan
          </Card.Title>
          <SubscriptionStatusBadge status={status} />
        </div>
        <p className="text-body-secondary mb-3">
          {priceOf(plan)}
          {plan.description ? ` · ${plan.description}` : ''}
        </p>
        <ul className="list-unstyled mb-3">
          {planFeatures(plan).map((feature) => (
            <li key={feature} className="d-flex align-items-start gap-2 mb-1">
              <Check size={18} className="text-success flex-shrink-0 mt-1" aria-hidden="true" />
              <span>{feature}</span>
            </li>
          ))}
        </ul>
        <dl className="row mb-0 small">
          {subscription.trialEndsAt ? (
            <>
              <dt className="col-sm-5 text-body-secondary fw-normal">Trial ends</dt>
              <dd className="col-sm-7">{formatDay(subscription.trialEndsAt)}</dd>
            </>
          ) : null}
          <dt className="col-sm-5 text-body-secondary fw-normal">
            {status === 'cancelled' ? 'Renewal' : 'Renews'}
          </dt>
          <dd className="col-sm-7">
            {subscription.renewsAt ? formatDay(subscription.renewsAt) : 'Does not renew'}
          </dd>
          <dt className="col-sm-5 text-body-secondary fw-normal">Last changed</dt>
          <dd className="col-sm-7 mb-0">{formatDay(subscription.updatedAt)}</dd>
        </dl>
      </Card.Body>
    </Card>
  );
}
