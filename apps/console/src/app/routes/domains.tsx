import type { DomainSummary } from '@atrium/contracts/domains';
import { Globe, Plus } from 'lucide-react';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import { Link } from 'react-router';
import { EmptyState } from '../../components/empty-state.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { useDomains } from '../../features/domains/api/list-domains.ts';
import { useMakePrimary } from '../../features/domains/api/make-primary.ts';
import { DeleteDomainModal } from '../../features/domains/components/delete-domain-modal.tsx';
import { DomainsTable } from '../../features/domains/components/domains-table.tsx';
import { MakePrimaryError } from '../../features/domains/components/make-primary-error.tsx';
import { paths } from '../../lib/paths.ts';

export default function DomainsPage() {
  const domains = useDomains();
  const makePrimary = useMakePrimary();
  const [deleting, setDeleting] = useState<DomainSummary | null>(null);
  const list = domains.data?.domains ?? [];
  const atLimit = domains.data ? list.length >= domains.data.limit : false;

  const add = (
    <Link
      to={paths.addDomain()}
      className={`btn btn-primary d-inline-flex align-items-center gap-2${atLimit ? ' disabled' : ''}`}
      aria-disabled={atLimit}
    >
      <Plus size={18} aria-hidden="true" />
      Add a domain
    </Link>
  );

  return (
    <>
      <PageHeader
        title="Domains"
        description="The domains your organisation uses for e-mail addresses, mail and its site."
        actions={add}
      />
      <MakePrimaryError error={makePrimary.error} onClose={() => makePrimary.reset()} />
      {atLimit ? (
        <Alert variant="info">
          Your organisation has {list.length} domains, the most allowed. Delete one to add another.
        </Alert>
      ) : null}
      <div className="card atrium-card">
        <div className="card-body">
          {!domains.data ? (
            <QueryState error={domains.error} what="your domains" onRetry={() => void domains.refetch()} />
          ) : list.length === 0 ? (
            <EmptyState
              icon={Globe}
              title="No domains yet"
              action={
                <Link to={paths.addDomain()} className="btn btn-primary">
                  Add a domain
                </Link>
              }
            >
              Add a domain, then prove you own it with a DNS TXT record to use it for your users’ addresses.
            </EmptyState>
          ) : (
            <DomainsTable
              domains={list}
              busyId={makePrimary.isPending ? (makePrimary.variables ?? null) : null}
              onMakePrimary={(domain) => makePrimary.mutate(domain.id)}
              onDelete={setDeleting}
            />
          )}
        </div>
      </div>
      <DeleteDomainModal domain={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
