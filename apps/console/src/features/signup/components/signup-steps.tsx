import { SIGNUP_STAGES, type SignupStage } from '@atrium/contracts/signup';
import { Steps } from '../../../components/steps.tsx';

const LABELS: Record<SignupStage, string> = {
  site: 'Organisation',
  email: 'E-mail',
  verify: 'Verify',
  account: 'Account',
};

/** Where the visitor is among the four stages. */
export function SignupSteps({ stage }: { stage: SignupStage }) {
  const current = SIGNUP_STAGES.indexOf(stage);
  return (
    <Steps
      label="Sign-up steps"
      items={SIGNUP_STAGES.map((name, index) => ({
        key: name,
        label: LABELS[name],
        state: index < current ? 'done' : index === current ? 'current' : 'todo',
      }))}
    />
  );
}
