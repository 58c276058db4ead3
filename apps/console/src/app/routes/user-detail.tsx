import Alert from 'react-bootstrap/Alert';
import { Link, useLocation, useParams } from 'react-router';
import { PageHeader } from '../../components/page-header.tsx';
import { usePageTitle } from '../../components/page-title.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { useUserDetail } from '../../features/users/api/user-detail.ts';
import { UserAppsCard } from '../../features/users/components/user-apps-card.tsx';
import { UserDetailsCard } from '../../features/users/components/user-details-card.tsx';
import { UserDevicesCard } from '../../features/users/components/user-devices-card.tsx';
import { UserGroupsCard } from '../../features/users/components/user-groups-card.tsx';
import { UserFactorsCard } from '../../features/users/components/user-factors-card.tsx';
import { UserPasswordCard } from '../../features/users/components/user-password-card.tsx';
import { UserSessionsCard } from '../../features/users/components/user-sessions-card.tsx';
import { UserStatusActions } from '../../features/users/components/user-status-actions.tsx';
import { UserStatusBadge } from '../../features/users/components/user-status-badge.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { paths } from '../../lib/paths.ts';

interface CreatedState {
  created?: { invited: boolean; mailSent: boolean; invitationSentTo?: string | null };
}

export default function UserDetailPage() {
  const { userId = '' } = useParams();
  const location = useLocation();
  const created = (location.state as CreatedState | null)?.created;
  const user = useUserDetail(userId);
  usePageTitle(user.data?.name);

  if (!user.data) {
    if (user.error instanceof ApiError && (user.error.status === 404 || user.error.status === 400)) {
      return (
        <>
          <PageHeader title="User not found" />
          <Alert variant="warning">
            <Alert.Heading as="h2" className="h6">
              This user does not exist
            </Alert.Heading>
            <p className="mb-0">
              They may have been deleted. <Link to={paths.users()}>Back to users</Link>
            </p>
          </Alert>
        </>
      );
    }
    return <QueryState error={user.error} what="the user" onRetry={() => void user.refetch()} />;
  }
  const u = user.data;
  // "… was added and can sign in" holds only while the user is as they were added: once
  // suspended (or reactivated, or signed in), the badge and the actions say what is true now.
  const addedNotice = created && u.status === (created.invited ? 'invited' : 'active') ? created : null;
  const invitedAt = addedNotice?.invitationSentTo ?? u.email;
  return (
    <>
      <PageHeader
        title={u.name}
        description={
          <span className="d-inline-flex flex-wrap align-items-center gap-2">
            <span className="text-break">{u.email}</span> <UserStatusBadge status={u.status} />
          </span>
        }
        actions={<UserStatusActions user={u} />}
      />
      {addedNotice ? (
        <Alert variant={addedNotice.invited && !addedNotice.mailSent ? 'warning' : 'success'}>
          {addedNotice.invited
            ? addedNotice.mailSent
              ? `${u.name} was added and an invitation was sent to ${invitedAt}.`
              : `${u.name} was added. The invitation e-mail to ${invitedAt} could not be sent yet; Atrium keeps trying, and it will arrive once the mail server answers.`
            : `${u.name} was added and can sign in with the password you set.`}
        </Alert>
      ) : null}
      <div className="row g-4">
        <div className="col-lg-7">
          <UserDetailsCard user={u} />
          <UserGroupsCard user={u} />
          <UserAppsCard user={u} />
        </div>
        <div className="col-lg-5">
          <UserPasswordCard user={u} />
          <UserFactorsCard user={u} />
          <UserSessionsCard user={u} />
          <UserDevicesCard user={u} />
        </div>
      </div>
    </>
  );
}
