import Alert from 'react-bootstrap/Alert';
import { PageHeader } from '../../components/page-header.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { useSubscription } from '../../features/subscriptions/api/subscription.ts';
import { ChangePlanForm } from '../../features/subscriptions/components/change-plan-form.tsx';
import { formatDay } from '../../features/subscriptions/components/format.ts';
import { MailPlanCard } from '../../features/subscriptions/components/mail-plan-card.tsx';
import { PlanCard } from '../../features/subscriptions/components/plan-card.tsx';
import { SubscriptionHistory } from '../../features/subscriptions/components/subscription-history.tsx';
import { UsageCard } from '../../features/subscriptions/components/usage-card.tsx';

/** A word on a status that limits what the admin can do. */
function StatusNotice({ status, trialEndsAt }: { status: string; trialEndsAt: string | null }) {
  if (status === 'cancelled') {
    return (
      <Alert variant="warning">
        <Alert.Heading as="h2" className="h6">
          Your subscription is cancelled
        </Alert.Heading>
        <p className="mb-0">
          You can still read and export everything, but nothing can be changed until you choose a plan below.
        </p>
      </Alert>
    );
  }
  if (status === 'past_due') {
    return (
      <Alert variant="warning">
        <Alert.Heading as="h2" className="h6">
          A payment is due
        </Alert.Heading>
        <p className="mb-0">
          Your provider has not received the last payment. Contact them to keep your plan.
        </p>
      </Alert>
    );
  }
  if (status === 'trial' && trialEndsAt) {
    if (Date.parse(trialEndsAt) < Date.now()) {
      return (
        <Alert variant="warning">
          Your free trial ended on {formatDay(trialEndsAt)}. Contact your provider to keep your plan.
        </Alert>
      );
    }
    return <Alert variant="info">Your free trial runs until {formatDay(trialEndsAt)}.</Alert>;
  }
  return null;
}

export default function SubscriptionsPage() {
  const query = useSubscription();
  const data = query.data;
  return (
    <>
      <PageHeader
        title="Subscriptions"
        description="Your plan, seats and mail plan, and every change made to them."
      />
      {!data ? (
        <QueryState error={query.error} what="your subscription" onRetry={() => void query.refetch()} />
      ) : (
        <>
          <StatusNotice status={data.subscription.status} trialEndsAt={data.subscription.trialEndsAt} />
          <div className="row gx-4">
            <div className="col-lg-7">
              <PlanCard subscription={data.subscription} />
            </div>
            <div className="col-lg-5">
              <UsageCard subscription={data.subscription} />
              <MailPlanCard />
            </div>
          </div>
          <ChangePlanForm subscription={data.subscription} plans={data.plans} />
          <SubscriptionHistory history={data.history} plans={data.plans} />
        </>
      )}
    </>
  );
}
