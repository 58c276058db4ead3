import Button from 'react-bootstrap/Button';
import { Link } from 'react-router';
import { paths } from '../../../lib/paths.ts';
import { useCatalog } from '../../apps/api/catalog.ts';
import { useInstalledApps } from '../../apps/api/installed-apps.ts';
import { QueryState } from '../../apps/components/query-state.tsx';
import { useMarkStep } from '../api/setup-progress.ts';
import { StepFrame } from './step-frame.tsx';

/**
 * Step 5: the apps people open with single sign-on. Cloud storage comes installed; the others
 * install through the apps area's install page, whose Done brings the admin back here.
 */
export function StepApps() {
  const installed = useInstalledApps();
  const catalog = useCatalog();
  const markStep = useMarkStep();
  const installedKeys = new Set((installed.data ?? []).map((app) => app.templateKey));
  const ready = installed.data && catalog.data;
  return (
    <StepFrame
      title="Choose apps"
      intro="Your people open these apps from their apps page and sign in once. Cloud storage is installed for everyone."
      error={markStep.error}
    >
      {ready ? (
        <>
          <ul className="list-group mb-3" aria-label="Installed apps">
            {installed.data.map((app) => (
              <li
                key={app.id}
                className="list-group-item d-flex justify-content-between align-items-center gap-2"
              >
                <span className="fw-medium">{app.title}</span>
                <span className="badge text-bg-success">Installed</span>
              </li>
            ))}
          </ul>
          <h3 className="h6 mt-4">More apps</h3>
          <ul className="list-group mb-4" aria-label="Apps you can install">
            {catalog.data
              .filter((template) => !installedKeys.has(template.key))
              .map((template) => (
                <li key={template.key} className="list-group-item d-flex align-items-center gap-3">
                  <img src={template.image} alt="" width={32} height={32} />
                  <span className="flex-grow-1 min-w-0">
                    <span className="d-block fw-medium">{template.title}</span>
                    <span className="d-block small text-body-secondary">{template.description}</span>
                  </span>
                  <Link
                    to={paths.appInstall(template.key, 'setup')}
                    className="btn btn-sm btn-outline-primary"
                  >
                    Install<span className="visually-hidden"> {template.title}</span>
                  </Link>
                </li>
              ))}
          </ul>
        </>
      ) : (
        <QueryState
          error={installed.error ?? catalog.error}
          what="the apps"
          onRetry={() => void Promise.all([installed.refetch(), catalog.refetch()])}
        />
      )}
      <Button
        onClick={() => markStep.mutate({ step: 'apps', outcome: 'done' })}
        disabled={markStep.isPending}
      >
        Continue
      </Button>
    </StepFrame>
  );
}
