import type { DomainDetail, VerificationCheck } from '@atrium/contracts/domains';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { QueryState } from '../../apps/components/query-state.tsx';
import { useDomain } from '../api/domain-detail.ts';
import { useVerifyDomain } from '../api/verify-domain.ts';
import { formatDateTime } from './format.ts';
import { TxtRecord } from './txt-record.tsx';
import { VerificationOutcome } from './verification-outcome.tsx';

export interface VerifyDomainPanelProps {
  domainId: string;
  /** Called once Verify has succeeded. */
  onVerified?: (domain: DomainDetail) => void;
  /** Shows a "Verify later" button that calls this (the background check keeps going). */
  onLater?: () => void;
  laterLabel?: string;
  /** Keeps field ids unique when embedded (setup wizard). */
  idPrefix?: string;
}

/**
 * The TXT record to publish, with copy buttons, and the Verify button with its four outcomes.
 * Used by /d-verify and by the setup wizard.
 */
export function VerifyDomainPanel({
  domainId,
  onVerified,
  onLater,
  laterLabel = 'Verify later',
  idPrefix = 'verify-txt',
}: VerifyDomainPanelProps) {
  const detail = useDomain(domainId);
  const verify = useVerifyDomain();
  const [check, setCheck] = useState<VerificationCheck | null>(null);

  if (!detail.data) {
    return <QueryState error={detail.error} what="the domain" onRetry={() => void detail.refetch()} />;
  }
  const domain = detail.data.domain;
  const shown = check ?? domain.lastCheck;

  async function onVerify() {
    setCheck(null);
    const result = await verify.mutateAsync(domainId);
    setCheck(result.check);
    if (result.domain.state === 'verified') onVerified?.(result.domain);
  }

  if (domain.state === 'verified' && !check) {
    return (
      <Alert variant="success" className="mb-0">
        <Alert.Heading as="h3" className="h6 fw-semibold mb-1">
          Domain verified
        </Alert.Heading>
        <p className="mb-0">
          {domain.displayName} was verified on {formatDateTime(domain.verifiedAt)}.
        </p>
      </Alert>
    );
  }

  return (
    <div>
      <p>
        Sign in to the DNS provider of <strong>{domain.displayName}</strong> and add this TXT record at the
        domain itself (some providers write the host as <code>@</code>). Then press Verify.
      </p>
      <TxtRecord record={domain.verificationRecord} idPrefix={idPrefix} />
      <div aria-live="polite">
        {verify.isPending ? null : shown ? (
          <>
            <VerificationOutcome check={shown} />
            {!check ? (
              <p className="small text-body-secondary mt-n2">
                Last checked {formatDateTime(shown.checkedAt)}.
              </p>
            ) : null}
          </>
        ) : null}
        {verify.error ? (
          <Alert variant="danger">
            <Alert.Heading as="h3" className="h6 fw-semibold mb-1">
              Verification could not run
            </Alert.Heading>
            <p className="mb-0">{verify.error.message}</p>
          </Alert>
        ) : null}
      </div>
      {domain.state !== 'verified' ? (
        <p className="small text-body-secondary">
          {domain.state === 'pending'
            ? `Until ${formatDateTime(domain.recheckUntil)} we also check in the background and notify your administrators when it is verified.`
            : 'Background checks have stopped for this domain; press Verify once the record is published.'}
        </p>
      ) : null}
      <div className="d-flex flex-wrap gap-2">
        {domain.state !== 'verified' ? (
          <Button
            onClick={() => void onVerify().catch(() => undefined)}
            disabled={verify.isPending}
            className="d-inline-flex align-items-center gap-2"
          >
            {verify.isPending ? <Spinner animation="border" size="sm" aria-hidden="true" /> : null}
            {verify.isPending ? 'Checking DNS…' : 'Verify'}
          </Button>
        ) : null}
        {onLater ? (
          <Button variant="outline-secondary" onClick={onLater}>
            {domain.state === 'verified' ? 'Continue' : laterLabel}
          </Button>
        ) : null}
      </div>
    </div>
  );
}
