import type { SignupStage } from '@atrium/contracts/signup';
import { Building2 } from 'lucide-react';
import type { ComponentType } from 'react';
import { PublicCard } from '../../components/public-card.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { useSignupState } from '../../features/signup/api/signup-state.ts';
import { AccountStage } from '../../features/signup/components/account-stage.tsx';
import { EmailStage } from '../../features/signup/components/email-stage.tsx';
import { SignupSteps } from '../../features/signup/components/signup-steps.tsx';
import { SiteStage } from '../../features/signup/components/site-stage.tsx';
import { VerifyStage } from '../../features/signup/components/verify-stage.tsx';
import type { SignupState } from '@atrium/contracts/signup';
import { serverPaths } from '../../lib/paths.ts';

const STAGES: Record<SignupStage, { title: string; Component: ComponentType<{ state: SignupState }> }> = {
  site: { title: 'Create your organisation', Component: SiteStage },
  email: { title: 'Your e-mail address', Component: EmailStage },
  verify: { title: 'Check your e-mail', Component: VerifyStage },
  account: { title: 'Create your account', Component: AccountStage },
};

/** Sign-up: the stage comes from the server, so a reload resumes it. */
export default function SignupPage() {
  const state = useSignupState();
  const stage = state.data ? STAGES[state.data.stage] : STAGES.site;
  return (
    <PublicCard
      title={stage.title}
      icon={Building2}
      footer={
        <>
          Already have an account? <a href={serverPaths.ssoStart()}>Sign in</a>
        </>
      }
    >
      <div className="text-start mt-4">
        {state.data ? (
          <>
            <SignupSteps stage={state.data.stage} />
            {/* Keyed by stage: each stage's form starts from what the server holds. */}
            <stage.Component key={state.data.stage} state={state.data} />
          </>
        ) : (
          <QueryState error={state.error} what="your sign-up" onRetry={() => void state.refetch()} />
        )}
      </div>
    </PublicCard>
  );
}
