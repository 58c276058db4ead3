import type { SetupProgress } from '@atrium/contracts/setup';
import { SETUP_STEPS, SETUP_STEP_TITLES } from '@atrium/contracts/setup-steps';
import { CheckCircle2, Circle } from 'lucide-react';
import Button from 'react-bootstrap/Button';
import { useNavigate } from 'react-router';
import { paths } from '../../../lib/paths.ts';
import { useCompleteSetup } from '../api/setup-progress.ts';
import { StepFrame } from './step-frame.tsx';

/** The last page: what is done, what was left for later, and the way to the admin home. */
export function StepFinish({ progress }: { progress: SetupProgress }) {
  const complete = useCompleteSetup();
  const navigate = useNavigate();
  async function onFinish() {
    await complete.mutateAsync();
    await navigate(paths.dashboard());
  }
  return (
    <StepFrame
      title="You are all set"
      intro="Steps you skipped stay on the admin home’s checklist until they are done."
      error={complete.error}
    >
      <ul className="list-unstyled mb-4">
        {SETUP_STEPS.map((step) => {
          const done = progress.done.includes(step);
          return (
            <li key={step} className="d-flex align-items-center gap-2 py-1">
              {done ? (
                <CheckCircle2 size={18} className="text-success" aria-hidden="true" />
              ) : (
                <Circle size={18} className="text-body-tertiary" aria-hidden="true" />
              )}
              <span>{SETUP_STEP_TITLES[step]}</span>
              <span className="visually-hidden">{done ? ': done' : ': left for later'}</span>
              {!done ? <span className="badge text-bg-light">Later</span> : null}
            </li>
          );
        })}
      </ul>
      <Button onClick={() => void onFinish().catch(() => undefined)} disabled={complete.isPending}>
        {complete.isPending ? 'Finishing…' : 'Finish and go to the admin home'}
      </Button>
    </StepFrame>
  );
}
