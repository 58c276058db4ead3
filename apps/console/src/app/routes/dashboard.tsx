import Alert from 'react-bootstrap/Alert';
import { PageHeader } from '../../components/page-header.tsx';
import { RecentActivity } from '../../features/activity/components/recent-activity.tsx';
import { useCurrentUser } from '../../features/auth/api/current-user.ts';
import { useDashboard } from '../../features/dashboard/api/dashboard.ts';
import { SetupChecklist } from '../../features/dashboard/components/setup-checklist.tsx';
import { StatCards } from '../../features/dashboard/components/stat-cards.tsx';

/** The admin home: setup checklist, counts and the newest activity. */
export default function DashboardPage() {
  const user = useCurrentUser();
  const dashboard = useDashboard();
  const setup = dashboard.data?.setup;
  // Once every step is done the checklist is one line, and the activity takes the width.
  const setupDone = setup !== undefined && setup.openSteps.length === 0;
  return (
    <>
      <PageHeader
        title="Admin home"
        description={`Welcome back${user.firstName ? `, ${user.firstName}` : ''}. Here is an overview of ${user.organization.name}.`}
      />
      {dashboard.isError ? (
        <Alert variant="danger">
          <Alert.Heading as="h2" className="h6">
            The overview could not be loaded
          </Alert.Heading>
          <p className="mb-0">{dashboard.error.message}</p>
        </Alert>
      ) : null}
      <StatCards counts={dashboard.data?.counts} />
      <div className="row g-3">
        <div className={setupDone ? 'col-12' : 'col-12 col-xl-7'}>
          <SetupChecklist setup={setup} />
        </div>
        <div className={setupDone ? 'col-12' : 'col-12 col-xl-5'}>
          <RecentActivity count={10} />
        </div>
      </div>
    </>
  );
}
