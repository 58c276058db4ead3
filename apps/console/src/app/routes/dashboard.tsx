import type { SetupProgress } from '@atrium/contracts/setup';
import { SETUP_STEPS } from '@atrium/contracts/setup-steps';
import { PageHeader } from '../../components/page-header.tsx';
import { RecentActivity } from '../../features/activity/components/recent-activity.tsx';
import { useCurrentUser } from '../../features/auth/api/current-user.ts';
import { useDashboard } from '../../features/dashboard/api/dashboard.ts';
import {
  checklistIsOneLine,
  SetupChecklist,
  type ChecklistSetup,
} from '../../features/dashboard/components/setup-checklist.tsx';
import { useSetupProgress } from '../../features/setup/api/setup-progress.ts';
import { StatCards } from '../../features/dashboard/components/stat-cards.tsx';
import { LoadError } from '../../components/load-error.tsx';

/**
 * The steps still open, judged as the overview judges them: every step not done. An organisation
 * that never had a wizard (made by the operator) reads as completed without a date: nothing open.
 * The mail steps come with the overview only (no `mailSteps`: not known yet).
 */
function setupOf(progress: SetupProgress): ChecklistSetup {
  const noWizard = progress.completed && progress.completedAt === null;
  return {
    completed: progress.completed,
    openSteps: noWizard ? [] : SETUP_STEPS.filter((step) => !progress.done.includes(step)),
  };
}

/** The admin home: setup checklist, counts and the newest activity. */
export default function DashboardPage() {
  const user = useCurrentUser();
  const dashboard = useDashboard();
  const progress = useSetupProgress();
  // The page's loader has read the setup progress already, so the layout is known before the
  // overview arrives and nothing moves when it does.
  const setup = dashboard.data?.setup ?? (progress.data ? setupOf(progress.data) : undefined);
  // Once every step is done the checklist is one line, and the activity takes the width.
  const setupDone = checklistIsOneLine(setup);
  return (
    <>
      <PageHeader
        title="Admin home"
        description={`Welcome back${user.firstName ? `, ${user.firstName}` : ''}. Here is an overview of ${user.organization.name}.`}
      />
      {dashboard.isError ? (
        <LoadError
          title="The overview could not be loaded"
          message={dashboard.error.message}
          onRetry={() => void dashboard.refetch()}
        />
      ) : (
        // Counts it could not load are not shown as "—", which reads as none.
        <StatCards counts={dashboard.data?.counts} />
      )}
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
