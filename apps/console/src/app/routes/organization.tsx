import { PageHeader } from '../../components/page-header.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { useOrganizationProfile } from '../../features/organization/api/organization-profile.ts';
import { OrganizationForm } from '../../features/organization/components/organization-form.tsx';

export default function OrganizationPage() {
  const profile = useOrganizationProfile();
  return (
    <>
      <PageHeader
        title="Organization profile"
        description="Your organisation’s name, legal name, industry, size, country and time zone."
      />
      <div className="card atrium-card">
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
    </>
  );
}
