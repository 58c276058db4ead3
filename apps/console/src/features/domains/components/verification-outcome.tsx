import type { VerificationCheck } from '@atrium/contracts/domains';
import { AlertTriangle, CheckCircle2, CircleX, Hourglass } from 'lucide-react';
import type { LucideIcon } from 'lucide-react';
import Alert from 'react-bootstrap/Alert';

interface Look {
  variant: 'success' | 'info' | 'warning' | 'danger';
  icon: LucideIcon;
  heading: string;
}

function lookOf(check: VerificationCheck): Look {
  switch (check.outcome) {
    case 'verified':
      return { variant: 'success', icon: CheckCircle2, heading: 'Domain verified' };
    case 'no_record':
      return { variant: 'info', icon: Hourglass, heading: 'No TXT record found yet' };
    case 'mismatch':
      return { variant: 'warning', icon: AlertTriangle, heading: 'The TXT record does not match' };
    case 'lookup_failed':
      return {
        variant: 'danger',
        icon: CircleX,
        heading:
          check.failure === 'timeout'
            ? 'DNS lookup timed out'
            : check.failure === 'server_failure'
              ? 'DNS server failure'
              : 'DNS lookup failed',
      };
  }
}

/** One of the four outcomes of Verify, each with its own colour, icon and heading. */
export function VerificationOutcome({ check }: { check: VerificationCheck }) {
  const look = lookOf(check);
  const Icon = look.icon;
  return (
    <Alert variant={look.variant} className="d-flex gap-2" data-outcome={check.outcome}>
      <Icon size={20} className="flex-shrink-0 mt-1" aria-hidden="true" />
      <div className="min-w-0">
        <Alert.Heading as="h3" className="h6 fw-semibold mb-1">
          {look.heading}
        </Alert.Heading>
        <p className="mb-0">
          {check.outcome === 'mismatch' && check.found.length > 0
            ? messageBeforeFound(check.message)
            : check.message}
        </p>
        {check.outcome === 'mismatch' && check.found.length > 0 ? (
          <>
            <p className="mb-1 mt-2 small fw-semibold">Found at the domain:</p>
            <ul className="mb-0 small atrium-found-values">
              {check.found.map((value, index) => (
                <li key={index}>
                  <code className="text-break">{value}</code>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </div>
    </Alert>
  );
}

/** The server's message lists what it found; the list below shows it more readably. */
const messageBeforeFound = (message: string) => message.replace(/ Found: .*$/s, '');
