import { QueryState } from '../../apps/components/query-state.tsx';
import { useOrganizationProfile } from '../../organization/api/organization-profile.ts';
import { OrganizationForm } from '../../organization/components/organization-form.tsx';
import { useMarkStep } from '../api/setup-progress.ts';
import { StepFrame } from './step-frame.tsx';

/** Step 1: the organisation profile (legal name, industry, size, country, time zone). */
export function StepProfile() {
  const profile = useOrganizationProfile();
  const markStep = useMarkStep();
  return (
    <StepFrame
      title="Organization profile"
      intro="Tell us about your organisation. You can change this later on the organisation page."
      error={markStep.error}
    >
      {profile.data ? (
        <OrganizationForm
          profile={profile.data}
          submitLabel="Save and continue"
          onSaved={async () => {
            await markStep.mutateAsync({ step: 'profile', outcome: 'done' });
          }}
        />
      ) : (
        <QueryState
          error={profile.error}
          what="the organisation profile"
          onRetry={() => void profile.refetch()}
        />
      )}
    </StepFrame>
  );
}
