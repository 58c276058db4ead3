import { Link } from 'react-router';
import { PageHeader } from '../../components/page-header.tsx';
import { useCatalog } from '../../features/apps/api/catalog.ts';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { paths } from '../../lib/paths.ts';

/** "Available apps": the catalog an admin installs from. */
export default function AppsCatalogPage() {
  const catalog = useCatalog();
  return (
    <>
      <PageHeader
        title="Add an app"
        description="Choose an app. You set its addresses and who can open it on the next step."
      />
      {catalog.isSuccess ? (
        <ul className="row g-3 list-unstyled mb-0" aria-label="Available apps">
          {catalog.data.map((template) => (
            <li key={template.key} className="col-12 col-md-6 col-xl-4">
              <div className="card atrium-card h-100">
                <div className="card-body d-flex gap-3">
                  <img src={template.image} alt="" width={48} height={48} className="flex-shrink-0" />
                  <div className="d-flex flex-column">
                    <h2 className="h6 mb-1">{template.title}</h2>
                    <p className="small text-body-secondary mb-3">{template.description}</p>
                    <Link
                      to={paths.appInstall(template.key)}
                      className="btn btn-outline-primary btn-sm mt-auto align-self-start"
                      aria-label={`Install ${template.title}`}
                    >
                      Install
                    </Link>
                  </div>
                </div>
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <QueryState error={catalog.error} what="the catalog" onRetry={() => void catalog.refetch()} />
      )}
    </>
  );
}
