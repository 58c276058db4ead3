import { ExternalLink } from 'lucide-react';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import { useNavigate, useParams } from 'react-router';
import { PageHeader } from '../../components/page-header.tsx';
import { usePageTitle } from '../../components/page-title.tsx';
import { useAppDetail } from '../../features/apps/api/app-detail.ts';
import { useGroupOptions } from '../../features/apps/api/group-options.ts';
import { useRotateAppSecret } from '../../features/apps/api/rotate-secret.ts';
import { useUpdateApp } from '../../features/apps/api/update-app.ts';
import { AppConnection } from '../../features/apps/components/app-connection.tsx';
import { ClientSecretCard } from '../../features/apps/components/client-secret-card.tsx';
import { AppForm } from '../../features/apps/components/app-form.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import NotFoundPage from './not-found.tsx';
import { SecretOnce } from '../../features/apps/components/secret-once.tsx';
import { UninstallApp } from '../../features/apps/components/uninstall-app.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { paths } from '../../lib/paths.ts';

/** An installed app: its SSO settings, its secret (rotatable), who may open it, and uninstall. */
export default function AppDetailPage() {
  const { appId = '' } = useParams();
  const navigate = useNavigate();
  const detail = useAppDetail(appId);
  const groups = useGroupOptions();
  const update = useUpdateApp(appId);
  const rotate = useRotateAppSecret(appId);
  const [saved, setSaved] = useState(false);
  usePageTitle(detail.data?.title);

  // An uninstalled app, another organisation's, or an address that is no app at all.
  if (detail.error instanceof ApiError && detail.error.status === 404) {
    return <NotFoundPage />;
  }
  if (!detail.isSuccess || !groups.isSuccess) {
    return (
      <QueryState
        error={detail.error ?? groups.error}
        what="the app"
        onRetry={() => {
          void detail.refetch();
          void groups.refetch();
        }}
      />
    );
  }
  const app = rotate.data?.app ?? detail.data;

  return (
    <>
      <PageHeader
        title={app.title}
        description={
          <a
            href={app.launchUrl}
            target="_blank"
            rel="noopener"
            className="d-inline-flex align-items-center gap-1"
          >
            {app.launchUrl} <ExternalLink size={14} aria-hidden="true" />
          </a>
        }
        actions={<img src={app.image} alt="" width={48} height={48} />}
      />
      {rotate.data ? <SecretOnce secret={rotate.data.clientSecret} /> : null}
      <div className="row g-4">
        <div className="col-12 col-xl-7">
          <AppConnection app={app} />
          <ClientSecretCard title={app.title} rotate={rotate} />
        </div>
        <div className="col-12 col-xl-5">
          <div className="card atrium-card mb-4">
            <div className="card-body">
              <h2 className="h6 mb-3">Settings</h2>
              {saved ? (
                <Alert variant="success" onClose={() => setSaved(false)} dismissible>
                  Saved.
                </Alert>
              ) : null}
              <AppForm
                key={app.id}
                defaultValues={{
                  title: detail.data.title,
                  launchUrl: detail.data.launchUrl,
                  redirectUris: detail.data.redirectUris,
                  postLogoutRedirectUris: detail.data.postLogoutRedirectUris,
                  backchannelLogoutUri: detail.data.backchannelLogoutUri ?? '',
                  openToEveryone: detail.data.openToEveryone,
                  groupIds: detail.data.groups.map((g) => g.id),
                }}
                groups={groups.data}
                submitLabel="Save changes"
                onSubmit={async (values) => {
                  setSaved(false);
                  await update.mutateAsync(values);
                  setSaved(true);
                }}
              />
            </div>
          </div>
          <div className="card atrium-card border-danger-subtle">
            <div className="card-body">
              <h2 className="h6">Uninstall</h2>
              <p className="small text-body-secondary">
                Deletes the app and its client; everyone signed in to it through Atrium loses access.
              </p>
              <UninstallApp appId={app.id} title={app.title} onDone={() => navigate(paths.apps())} />
            </div>
          </div>
        </div>
      </div>
    </>
  );
}
