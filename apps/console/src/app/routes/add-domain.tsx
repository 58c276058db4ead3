import { DOMAIN_RECHECK_DAYS } from '@atrium/contracts/domains';
import { useNavigate } from 'react-router';
import { PageHeader } from '../../components/page-header.tsx';
import { AddDomainForm } from '../../features/domains/components/add-domain-form.tsx';
import { paths } from '../../lib/paths.ts';

export default function AddDomainPage() {
  const navigate = useNavigate();
  return (
    <>
      <PageHeader title="Add a domain" description="Add a domain your organisation owns." />
      <div className="row">
        <div className="col-lg-8 col-xl-6">
          <div className="card atrium-card">
            <div className="card-body">
              <AddDomainForm autoFocus onAdded={(domain) => navigate(paths.verifyDomain(domain.id))} />
              <p className="small text-body-secondary mt-4 mb-0">
                Next you get a TXT record to publish at your DNS provider. It proves you own the domain; we
                check it when you press Verify and in the background for {DOMAIN_RECHECK_DAYS} days.
              </p>
            </div>
          </div>
        </div>
      </div>
    </>
  );
}
