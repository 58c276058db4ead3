import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import { QueryState } from '../../apps/components/query-state.tsx';
import { useDomains } from '../../domains/api/list-domains.ts';
import { VerifyDomainPanel } from '../../domains/components/verify-domain-panel.tsx';
import { useMarkStep } from '../api/setup-progress.ts';
import { StepFrame } from './step-frame.tsx';

/** Step 3: publish the TXT record and verify, or "verify later" (the dashboard keeps reminding). */
export function StepVerify() {
  const domains = useDomains();
  const markStep = useMarkStep();
  const list = domains.data?.domains ?? [];
  const pending = list.find((d) => d.state !== 'verified');
  const verified = list.find((d) => d.state === 'verified');

  return (
    <StepFrame
      title="Verify your domain"
      intro="Prove you own the domain: publish a TXT record at your DNS provider, then press Verify. DNS changes can take a while to show."
      error={markStep.error}
    >
      {domains.isPending || domains.isError ? (
        <QueryState error={domains.error} what="your domains" onRetry={() => void domains.refetch()} />
      ) : pending ? (
        <VerifyDomainPanel
          key={pending.id}
          domainId={pending.id}
          idPrefix="setup-txt"
          onLater={() => markStep.mutate({ step: 'verify', outcome: 'skipped' })}
        />
      ) : (
        <>
          <Alert variant="success">
            {verified ? `${verified.displayName} is verified.` : 'Add a domain first.'}
          </Alert>
          <Button
            onClick={() => markStep.mutate({ step: 'verify', outcome: 'done' })}
            disabled={!verified || markStep.isPending}
          >
            Continue
          </Button>
        </>
      )}
    </StepFrame>
  );
}
