import { PageHeader } from '../../components/page-header.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { useOrganizationProfile } from '../../features/organization/api/organization-profile.ts';
import { useSignInPolicy } from '../../features/organization/api/sign-in-policy.ts';
import { OrganizationForm } from '../../features/organization/components/organization-form.tsx';
import { SignInPolicyForm } from '../../features/organization/components/sign-in-policy-form.tsx';

export default function OrganizationPage() {
  const profile = useOrganizationProfile();
  const policy = useSignInPolicy();
  return (
    <>
      <PageHeader
        title="Organization profile"
        description="Your organisation’s name, legal name, industry, size, country and time zone, and how its people sign in."
      />
      <div className="card atrium-card mb-4">
        <div className="card-body p-4">
          {profile.data ? (
            <OrganizationForm profile={profile.data} submitLabel="Save changes" />
          ) : (
            <QueryState
              error={profile.error}
              what="the organisation profile"
              onRetry={() => void profile.refetch()}
            />
          )}
        </div>
      </div>
      <section className="card atrium-card" aria-labelledby="org-sign-in-policy-heading">
        <div className="card-body p-4">
          <h2 id="org-sign-in-policy-heading" className="h6 mb-3">
            Sign-in policy
          </h2>
          {policy.data ? (
            <SignInPolicyForm policy={policy.data} />
          ) : (
            <QueryState
              error={policy.error}
              what="the sign-in policy"
              onRetry={() => void policy.refetch()}
            />
          )}
        </div>
      </section>
    </>
  );
}
