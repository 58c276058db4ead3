import type { SetupProgress } from '@atrium/contracts/setup';
import { SETUP_PAGES, SETUP_STEP_TITLES, type SetupPage } from '@atrium/contracts/setup-steps';
import Button from 'react-bootstrap/Button';
import { Steps } from '../../../components/steps.tsx';
import { useMoveStep } from '../api/setup-progress.ts';
import { StepApps } from './step-apps.tsx';
import { StepDomain } from './step-domain.tsx';
import { StepFinish } from './step-finish.tsx';
import { StepProfile } from './step-profile.tsx';
import { StepUsers } from './step-users.tsx';
import { StepVerify } from './step-verify.tsx';

function Stepper({ progress }: { progress: SetupProgress }) {
  const current = SETUP_PAGES.indexOf(progress.currentStep);
  return (
    <Steps
      label="Setup steps"
      items={SETUP_PAGES.map((page, index) => {
        const done = page !== 'finish' && progress.done.includes(page);
        const skipped = page !== 'finish' && progress.skipped.includes(page);
        return {
          key: page,
          label: SETUP_STEP_TITLES[page],
          state: index === current ? 'current' : done ? 'done' : skipped ? 'skipped' : 'todo',
        };
      })}
    />
  );
}

function CurrentStep({ progress }: { progress: SetupProgress }) {
  const step: SetupPage = progress.currentStep;
  switch (step) {
    case 'profile':
      return <StepProfile />;
    case 'domain':
      return <StepDomain />;
    case 'verify':
      return <StepVerify />;
    case 'users':
      return <StepUsers done={progress.done.includes('users')} />;
    case 'apps':
      return <StepApps />;
    case 'finish':
      return <StepFinish progress={progress} />;
  }
}

/** The setup wizard: the page comes from the server, so a reload resumes it. */
export function SetupWizard({ progress }: { progress: SetupProgress }) {
  const move = useMoveStep();
  return (
    <div className="card atrium-card">
      <div className="card-body p-4">
        <Stepper progress={progress} />
        <CurrentStep key={progress.currentStep} progress={progress} />
        {progress.showBottom && progress.previousPage ? (
          <div className="border-top mt-4 pt-3">
            <Button
              variant="link"
              className="px-0"
              onClick={() => move.mutate(progress.previousPage!)}
              disabled={move.isPending}
            >
              ← Back to {SETUP_STEP_TITLES[progress.previousPage]}
            </Button>
          </div>
        ) : null}
      </div>
    </div>
  );
}
