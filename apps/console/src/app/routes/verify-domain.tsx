import { ShieldCheck, Star } from 'lucide-react';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import { useEffect } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useDomains } from '../../features/domains/api/list-domains.ts';
import { EmptyState } from '../../components/empty-state.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { useDomain } from '../../features/domains/api/domain-detail.ts';
import { useMakePrimary } from '../../features/domains/api/make-primary.ts';
import { DnsMappingView } from '../../features/domains/components/dns-mapping-view.tsx';
import { DomainStateBadge } from '../../features/domains/components/domain-state-badge.tsx';
import { MakePrimaryError } from '../../features/domains/components/make-primary-error.tsx';
import { VerifyDomainPanel } from '../../features/domains/components/verify-domain-panel.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { paths } from '../../lib/paths.ts';

/** `/d-verify?id=…`: a pending domain's TXT record and Verify; a verified domain's DNS mapping. */
export default function VerifyDomainPage() {
  const [params] = useSearchParams();
  const id = params.get('id');
  if (!id) return <NextToVerify />;
  return <DomainPage id={id} />;
}

/**
 * `/d-verify` alone (the setup checklist's "Start"): the first domain still to verify, or, when
 * there is none, a way to the domains list.
 */
function NextToVerify() {
  const domains = useDomains();
  if (domains.isPending) {
    return (
      <p className="text-body-secondary" role="status">
        Loading domains…
      </p>
    );
  }
  const next = domains.data?.domains.find((d) => d.state !== 'verified');
  if (next) return <Navigate replace to={paths.verifyDomain(next.id)} />;
  return (
    <>
      <PageHeader title="Domain verification" />
      <div className="card atrium-card">
        <div className="card-body">
          <EmptyState
            icon={ShieldCheck}
            title="Choose a domain to verify"
            action={
              <Link to={paths.domains()} className="btn btn-primary">
                Go to domains
              </Link>
            }
          >
            Open a domain from the domains list to see its TXT record and verify it.
          </EmptyState>
        </div>
      </div>
    </>
  );
}

const DNS_MAPPING_HASH = '#dns-mapping';

function DomainPage({ id }: { id: string }) {
  const navigate = useNavigate();
  const detail = useDomain(id);
  const makePrimary = useMakePrimary();
  const { hash } = useLocation();
  const verified = detail.data?.domain.state === 'verified';
  // `#dns-mapping` (the setup checklist's "Publish your mail records"): the records, once drawn.
  useEffect(() => {
    if (verified && hash === DNS_MAPPING_HASH) document.getElementById('dns-mapping')?.scrollIntoView?.();
  }, [verified, hash]);

  if (!detail.data) {
    if (detail.error instanceof ApiError && (detail.error.status === 404 || detail.error.status === 400)) {
      return (
        <>
          <PageHeader title="Domain verification" />
          <Alert variant="warning">
            <Alert.Heading as="h2" className="h6">
              Domain not found
            </Alert.Heading>
            <p className="mb-2">It may have been deleted. Go back to the list of your domains.</p>
            <Link to={paths.domains()} className="btn btn-sm btn-outline-secondary">
              Go to domains
            </Link>
          </Alert>
        </>
      );
    }
    return <QueryState error={detail.error} what="the domain" onRetry={() => void detail.refetch()} />;
  }
  const domain = detail.data.domain;

  return (
    <>
      <PageHeader
        title={domain.displayName}
        description={
          <span className="d-inline-flex flex-wrap align-items-center gap-2">
            <DomainStateBadge state={domain.state} />
            {domain.isPrimary ? (
              <Badge bg="primary" className="d-inline-flex align-items-center gap-1">
                <Star size={12} aria-hidden="true" />
                Primary
              </Badge>
            ) : null}
            {domain.displayName !== domain.name ? <code>{domain.name}</code> : null}
          </span>
        }
        actions={
          verified && !domain.isPrimary ? (
            <Button
              variant="outline-primary"
              onClick={() => makePrimary.mutate(domain.id)}
              disabled={makePrimary.isPending}
            >
              {makePrimary.isPending ? 'Saving…' : 'Make primary'}
            </Button>
          ) : undefined
        }
      />
      <MakePrimaryError error={makePrimary.error} onClose={() => makePrimary.reset()} />
      <section className="card atrium-card mb-4" aria-labelledby="verify-heading">
        <div className="card-body">
          <h2 id="verify-heading" className="h5 mb-3">
            {verified ? 'Ownership' : 'Prove you own this domain'}
          </h2>
          <VerifyDomainPanel
            domainId={domain.id}
            onLater={verified ? undefined : () => navigate(paths.domains())}
          />
        </div>
      </section>
      {verified ? (
        <section className="card atrium-card" aria-labelledby="dns-mapping-heading" id="dns-mapping">
          <div className="card-body">
            <h2 id="dns-mapping-heading" className="h5 mb-1">
              DNS mapping
            </h2>
            <p className="text-body-secondary">
              Publish these records at your DNS provider so mail and your site work on {domain.displayName}.
              Beside each is what DNS holds now.
            </p>
            <DnsMappingView domainId={domain.id} />
          </div>
        </section>
      ) : null}
    </>
  );
}
