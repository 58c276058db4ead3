import './domains-table.css';
import type { DomainSummary } from '@atrium/contracts/domains';
import { Star, Trash2 } from 'lucide-react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import { Link } from 'react-router';
import { paths } from '../../../lib/paths.ts';
import { DomainStateBadge } from './domain-state-badge.tsx';
import { formatDateTime } from './format.ts';

const OUTCOME_SHORT = {
  verified: 'Record found',
  no_record: 'No TXT record yet',
  mismatch: 'Record does not match',
  lookup_failed: 'Lookup failed',
} as const;

export interface DomainsTableProps {
  domains: DomainSummary[];
  onMakePrimary: (domain: DomainSummary) => void;
  onDelete: (domain: DomainSummary) => void;
  /** The domain whose primary change is in flight. */
  busyId: string | null;
}

/**
 * Name (in Unicode), state, primary, verified at, last checked and actions.
 * Secondary columns give way as the screen narrows; on a phone each row stacks (domains-table.css).
 */
export function DomainsTable({ domains, onMakePrimary, onDelete, busyId }: DomainsTableProps) {
  return (
    <div className="table-responsive">
      <Table hover className="atrium-domains-table align-middle mb-0">
        <thead>
          <tr>
            <th scope="col">Domain</th>
            <th scope="col">State</th>
            <th scope="col" className="d-none d-md-table-cell">
              Verified
            </th>
            <th scope="col" className="d-none d-lg-table-cell">
              Last checked
            </th>
            <th scope="col" className="text-end">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {domains.map((domain) => (
            <tr key={domain.id}>
              <td className="text-break">
                <Link to={paths.verifyDomain(domain.id)} className="fw-semibold">
                  {domain.displayName}
                </Link>
                {domain.isPrimary ? (
                  <Badge bg="primary" className="ms-2 d-inline-flex align-items-center gap-1">
                    <Star size={12} aria-hidden="true" />
                    Primary
                  </Badge>
                ) : null}
                {domain.displayName !== domain.name ? (
                  <div className="small text-body-secondary font-monospace">{domain.name}</div>
                ) : null}
              </td>
              <td>
                <DomainStateBadge state={domain.state} />
              </td>
              <td className="d-none d-md-table-cell text-nowrap small">
                {formatDateTime(domain.verifiedAt)}
              </td>
              <td className="d-none d-lg-table-cell small">
                <div className="text-nowrap">{formatDateTime(domain.lastCheckedAt)}</div>
                {domain.lastCheck ? (
                  <div className="text-body-secondary">{OUTCOME_SHORT[domain.lastCheck.outcome]}</div>
                ) : null}
              </td>
              <td className="atrium-domains-table__actions">
                <div className="d-flex flex-wrap justify-content-end gap-2">
                  <Link
                    to={paths.verifyDomain(domain.id)}
                    className={`btn btn-sm text-nowrap ${domain.state === 'verified' ? 'btn-outline-primary' : 'btn-primary'}`}
                    aria-label={`${domain.state === 'verified' ? 'DNS mapping' : 'Verify'} ${domain.displayName}`}
                  >
                    {domain.state === 'verified' ? 'DNS mapping' : 'Verify'}
                  </Link>
                  {domain.state === 'verified' && !domain.isPrimary ? (
                    <Button
                      size="sm"
                      variant="outline-secondary"
                      onClick={() => onMakePrimary(domain)}
                      disabled={busyId !== null}
                      aria-label={`Make ${domain.displayName} primary`}
                    >
                      {busyId === domain.id ? 'Saving…' : 'Make primary'}
                    </Button>
                  ) : null}
                  <Button
                    size="sm"
                    variant="outline-danger"
                    className="d-inline-flex align-items-center"
                    onClick={() => onDelete(domain)}
                    aria-label={`Delete ${domain.displayName}`}
                    title="Delete"
                  >
                    <Trash2 size={16} aria-hidden="true" />
                  </Button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}
