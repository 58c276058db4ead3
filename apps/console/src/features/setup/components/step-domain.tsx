import { CheckCircle2, Clock } from 'lucide-react';
import Button from 'react-bootstrap/Button';
import { QueryState } from '../../apps/components/query-state.tsx';
import { useDomains } from '../../domains/api/list-domains.ts';
import { AddDomainForm } from '../../domains/components/add-domain-form.tsx';
import { useMarkStep } from '../api/setup-progress.ts';
import { StepFrame } from './step-frame.tsx';

/** Step 2: add the domain the organisation's e-mail addresses use (the domains area's form). */
export function StepDomain() {
  const domains = useDomains();
  const markStep = useMarkStep();
  const list = domains.data?.domains ?? [];

  return (
    <StepFrame
      title="Add a domain"
      intro="Add the domain your people’s e-mail addresses use, such as example.com. You prove you own it in the next step."
      error={markStep.error}
    >
      {domains.isPending || domains.isError ? (
        <QueryState error={domains.error} what="your domains" onRetry={() => void domains.refetch()} />
      ) : null}
      {list.length > 0 ? (
        <ul className="list-unstyled mb-4" aria-label="Your domains">
          {list.map((d) => (
            <li key={d.id} className="d-flex align-items-center gap-2 py-1">
              {d.state === 'verified' ? (
                <CheckCircle2 size={18} className="text-success" aria-hidden="true" />
              ) : (
                <Clock size={18} className="text-warning" aria-hidden="true" />
              )}
              <span className="fw-medium">{d.displayName}</span>
              <span className="badge text-bg-light text-capitalize">{d.state}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="mb-3">
        <AddDomainForm
          idPrefix="setup-domain"
          label={list.length > 0 ? 'Add another domain' : 'Domain name'}
          submitLabel="Add domain and continue"
          autoFocus
          onAdded={async () => {
            await markStep.mutateAsync({ step: 'domain', outcome: 'done' });
          }}
        />
      </div>
      {list.length > 0 ? (
        <Button
          variant="outline-primary"
          onClick={() => markStep.mutate({ step: 'domain', outcome: 'done' })}
          disabled={markStep.isPending}
        >
          Continue with {list.length === 1 ? list[0]!.displayName : 'these domains'}
        </Button>
      ) : null}
    </StepFrame>
  );
}
