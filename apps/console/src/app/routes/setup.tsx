import { Navigate } from 'react-router';
import { PageHeader } from '../../components/page-header.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { useSetupProgress } from '../../features/setup/api/setup-progress.ts';
import { SetupWizard } from '../../features/setup/components/setup-wizard.tsx';
import { paths } from '../../lib/paths.ts';

export default function SetupPage() {
  const progress = useSetupProgress();
  // A finished setup has nothing more to show; the admin home keeps any open steps.
  if (progress.data?.completed) return <Navigate to={paths.dashboard()} replace />;
  return (
    <>
      <PageHeader
        title="Set up your organisation"
        description="A few steps and your organisation is ready."
      />
      {progress.data ? (
        <SetupWizard progress={progress.data} />
      ) : (
        <QueryState error={progress.error} what="your setup" onRetry={() => void progress.refetch()} />
      )}
    </>
  );
}
