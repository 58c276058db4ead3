import { AppWindow, Plus } from 'lucide-react';
import { Link } from 'react-router';
import { EmptyState } from '../../components/empty-state.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { useInstalledApps } from '../../features/apps/api/installed-apps.ts';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { paths } from '../../lib/paths.ts';

/** "Selected apps": what the organisation installed, and who may open each. */
export default function AppsPage() {
  const installed = useInstalledApps();
  const addButton = (
    <Link to={paths.appsCatalog()} className="btn btn-primary d-inline-flex align-items-center gap-2">
      <Plus size={18} aria-hidden="true" /> Add an app
    </Link>
  );
  return (
    <>
      <PageHeader
        title="Apps"
        description="Apps your users sign in to with Atrium. Each one is an OpenID Connect client."
        actions={addButton}
      />
      {installed.isSuccess ? (
        installed.data.length === 0 ? (
          <div className="card atrium-card">
            <div className="card-body">
              <EmptyState icon={AppWindow} title="No apps installed" action={addButton}>
                Install an app from the catalog so your users can open it from their apps page.
              </EmptyState>
            </div>
          </div>
        ) : (
          <div className="card atrium-card">
            <ul className="list-group list-group-flush" aria-label="Installed apps">
              {installed.data.map((app) => (
                <li key={app.id} className="list-group-item d-flex align-items-center gap-3 py-3">
                  <img src={app.image} alt="" width={40} height={40} />
                  <div className="flex-grow-1 min-w-0">
                    <Link to={paths.appDetail(app.id)} className="fw-semibold text-decoration-none">
                      {app.title}
                    </Link>
                    <div className="small text-body-secondary text-truncate">{app.launchUrl}</div>
                  </div>
                  <div className="small text-body-secondary text-end d-none d-sm-block">
                    {app.openToEveryone ? 'Everyone' : app.groups.map((g) => g.name).join(', ') || 'Nobody'}
                  </div>
                </li>
              ))}
            </ul>
          </div>
        )
      ) : (
        <QueryState error={installed.error} what="installed apps" onRetry={() => void installed.refetch()} />
      )}
    </>
  );
}
