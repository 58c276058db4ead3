import { LayoutGrid } from 'lucide-react';
import Placeholder from 'react-bootstrap/Placeholder';
import { EmptyState } from '../../components/empty-state.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { useCurrentUser } from '../../features/auth/api/current-user.ts';
import { useUserApplications } from '../../features/apps/api/user-applications.ts';
import { AppTiles } from '../../features/apps/components/app-tiles.tsx';
import { DeviceSetupLink } from '../../features/devices/components/device-setup-link.tsx';
import { LoadError } from '../../components/load-error.tsx';

/** The apps page: exactly the apps this user may open, each in a new tab. */
export default function ApplicationPage() {
  const user = useCurrentUser();
  const applications = useUserApplications();
  return (
    <>
      <PageHeader
        title="Your apps"
        description={`Sign in once and open every app of ${user.organization.name}.`}
      />
      {applications.isPending ? (
        <ul className="atrium-app-grid list-unstyled mb-0" aria-busy="true" aria-label="Loading your apps">
          {[0, 1, 2].map((i) => (
            <li key={i} className="card atrium-card p-4">
              <Placeholder as="div" animation="glow" className="text-center">
                <Placeholder style={{ width: 56, height: 56 }} className="rounded-3 mb-2" />
                <Placeholder xs={8} />
              </Placeholder>
            </li>
          ))}
        </ul>
      ) : applications.isError ? (
        <LoadError
          title="Your apps could not be loaded"
          message={applications.error.message}
          onRetry={() => void applications.refetch()}
        />
      ) : applications.data.apps.length === 0 ? (
        <div className="card atrium-card">
          <div className="card-body">
            <EmptyState icon={LayoutGrid} title="No apps yet">
              Your administrator has not given you any apps yet. When they do, they appear here.
            </EmptyState>
          </div>
        </div>
      ) : (
        <AppTiles apps={applications.data.apps} />
      )}
      {/* Mail, calendars and contacts on a phone or computer: /profile's "Set up a device". */}
      <div className="card atrium-card mt-4">
        <div className="card-body py-3 px-4">
          <DeviceSetupLink />
        </div>
      </div>
    </>
  );
}
