import type { Plan, Subscription } from '@atrium/contracts/subscriptions';
import { MAX_SEATS } from '@atrium/contracts/subscriptions';
import { useState, type FormEvent } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { SectionCard } from '../../../components/section-card.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { useChangeSubscription } from '../api/change-subscription.ts';
import { formatQuota, monthlyTotal, planFeatures, plural, priceOf, seatsText } from './format.ts';

interface Failure {
  message: string;
  fields: Record<string, string>;
}

function PlanOption({
  plan,
  current,
  checked,
  onChoose,
}: {
  plan: Plan;
  current: boolean;
  checked: boolean;
  onChoose: () => void;
}) {
  return (
    <div className="col-md-4">
      <label
        className={`atrium-plan-option card h-100 ${checked ? 'border-primary shadow-sm' : ''}`}
        htmlFor={`plan-${plan.key}`}
      >
        <span className="card-body d-block">
          <span className="d-flex align-items-center gap-2 mb-1">
            <Form.Check.Input
              className="mt-0"
              type="radio"
              name="plan"
              id={`plan-${plan.key}`}
              value={plan.key}
              checked={checked}
              onChange={onChoose}
            />
            <span className="fw-semibold">{plan.title}</span>
            {current ? <span className="badge text-bg-light border ms-auto">Current</span> : null}
          </span>
          <span className="d-block small text-body-secondary mb-2">{priceOf(plan)}</span>
          <span className="d-block small">
            {planFeatures(plan).map((feature) => (
              <span key={feature} className="d-block">
                {feature}
              </span>
            ))}
          </span>
        </span>
      </label>
    </div>
  );
}

/** "Business → Enterprise" lines for what differs between the current plan and seats and the new. */
function changesOf(from: Plan, fromSeats: number, to: Plan, toSeats: number): [string, string][] {
  const lines: [string, string][] = [];
  const differ = (label: string, a: string, b: string) => {
    if (a !== b) lines.push([label, `${a} → ${b}`]);
  };
  differ('Plan', from.title, to.title);
  differ('Seats', seatsText(fromSeats), seatsText(toSeats));
  differ('Storage per mailbox', formatQuota(from.mailboxQuotaMb), formatQuota(to.mailboxQuotaMb));
  differ('Domains', plural(from.maxDomains, 'domain'), plural(to.maxDomains, 'domain'));
  const apps = (p: Plan) => (p.allApps ? 'every app' : p.appTemplates.map((a) => a.title).join(', '));
  differ('Apps', apps(from), apps(to));
  return lines;
}

/** The confirmation's words: the new monthly total, what it is now, and what changes. */
function ChangeSummary({
  from,
  fromSeats,
  to,
  toSeats,
}: {
  from: Plan;
  fromSeats: number;
  to: Plan;
  toSeats: number;
}) {
  const total = monthlyTotal(to, toSeats);
  const now = monthlyTotal(from, fromSeats);
  return (
    <>
      <p className="mb-1">
        New monthly total: <strong data-testid="new-monthly-total">{total ?? priceOf(to)}</strong>
      </p>
      <p className="small text-body-secondary mb-3">
        {to.pricePerSeat ? `${seatsText(toSeats)} × ${to.pricePerSeat}. ` : ''}
        Now: {now ?? priceOf(from)} ({from.title}, {seatsText(fromSeats)}).
      </p>
      <p className="mb-1">What changes:</p>
      <ul className="mb-2" aria-label="What changes">
        {changesOf(from, fromSeats, to, toSeats).map(([label, change]) => (
          <li key={label}>
            {label}: {change}
          </li>
        ))}
      </ul>
      <p className="small text-body-secondary mb-0">The change applies at once.</p>
    </>
  );
}

/**
 * Change plan or seats, after a confirmation with the new monthly total and what changes; the server refuses one below what the organisation
 * uses and says what to remove first, shown beside the field it concerns.
 */
export function ChangePlanForm({ subscription, plans }: { subscription: Subscription; plans: Plan[] }) {
  const change = useChangeSubscription();
  const [planKey, setPlanKey] = useState(subscription.plan.key);
  const [seats, setSeats] = useState(String(subscription.seats));
  const [failure, setFailure] = useState<Failure | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const chosen = plans.find((p) => p.key === planKey);
  const seatsNumber = Number(seats);
  const unchanged = planKey === subscription.plan.key && seatsNumber === subscription.seats;
  const [confirming, setConfirming] = useState(false);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFailure(null);
    setDone(null);
    if (!Number.isInteger(seatsNumber) || seatsNumber < 1) {
      setFailure({ message: '', fields: { seats: 'Enter a whole number of seats, at least 1' } });
      return;
    }
    setConfirming(true);
  };

  const apply = async () => {
    try {
      const response = await change.mutateAsync({ planKey, seats: seatsNumber });
      const now = response.subscription;
      setConfirming(false);
      setDone(`Your subscription is now ${now.plan.title} with ${seatsText(now.seats)}.`);
    } catch (error) {
      setConfirming(false);
      if (error instanceof ApiError) setFailure({ message: error.message, fields: error.fields ?? {} });
      else setFailure({ message: error instanceof Error ? error.message : String(error), fields: {} });
    }
  };

  const fieldErrors = failure?.fields ?? {};
  return (
    <SectionCard title="Change plan or seats" titleMargin="mb-1" className="mb-4">
      <p className="text-body-secondary small mb-3">
        You see the new monthly total before anything changes. To go below what your organisation uses, remove
        users, domains or apps first.
      </p>
      {done ? (
        <Alert variant="success" dismissible onClose={() => setDone(null)}>
          {done}
        </Alert>
      ) : null}
      {failure?.message ? (
        <Alert variant="danger" dismissible onClose={() => setFailure(null)}>
          <Alert.Heading as="h3" className="h6">
            The subscription was not changed
          </Alert.Heading>
          <p className="mb-0">{failure.message}</p>
        </Alert>
      ) : null}
      <Form noValidate onSubmit={submit} aria-label="Change plan or seats">
        <fieldset className="mb-3">
          <legend className="form-label fs-6 mb-2">Plan</legend>
          <div className="row g-3" role="radiogroup" aria-label="Plan">
            {plans.map((plan) => (
              <PlanOption
                key={plan.key}
                plan={plan}
                current={plan.key === subscription.plan.key}
                checked={plan.key === planKey}
                onChoose={() => setPlanKey(plan.key)}
              />
            ))}
          </div>
          {fieldErrors.planKey ? (
            <div className="invalid-feedback d-block" role="alert">
              {fieldErrors.planKey}
            </div>
          ) : null}
        </fieldset>
        <Form.Group className="mb-3" controlId="subscription-seats" style={{ maxWidth: '24rem' }}>
          <Form.Label>Number of seats</Form.Label>
          <Form.Control
            type="number"
            inputMode="numeric"
            min={1}
            max={chosen?.seatLimit ?? MAX_SEATS}
            value={seats}
            onChange={(e) => setSeats(e.target.value)}
            isInvalid={!!fieldErrors.seats}
            aria-describedby="subscription-seats-help"
          />
          <Form.Control.Feedback type="invalid">{fieldErrors.seats}</Form.Control.Feedback>
          <Form.Text id="subscription-seats-help">
            {subscription.seatsUsed} in use
            {chosen?.seatLimit ? ` · the ${chosen.title} plan allows up to ${chosen.seatLimit}` : ''}
          </Form.Text>
        </Form.Group>
        <Button type="submit" disabled={change.isPending || unchanged}>
          Update subscription
        </Button>
      </Form>
      {chosen ? (
        <ConfirmDialog
          show={confirming}
          title={`Change to ${chosen.title} with ${seatsText(seatsNumber)}?`}
          confirmLabel="Change subscription"
          pendingLabel="Changing…"
          variant="primary"
          pending={change.isPending}
          error={null}
          errorTitle="The subscription was not changed"
          onConfirm={() => void apply()}
          onCancel={() => setConfirming(false)}
        >
          <ChangeSummary
            from={subscription.plan}
            fromSeats={subscription.seats}
            to={chosen}
            toSeats={seatsNumber}
          />
        </ConfirmDialog>
      ) : null}
    </SectionCard>
  );
}
