import type { AppTemplate, AppWithSecretResponse, UpdateAppBody } from '@atrium/contracts/apps';
import { CheckCircle2 } from 'lucide-react';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { PageHeader } from '../../components/page-header.tsx';
import { usePageTitle } from '../../components/page-title.tsx';
import { useCatalog } from '../../features/apps/api/catalog.ts';
import { useGroupOptions } from '../../features/apps/api/group-options.ts';
import { useInstallApp } from '../../features/apps/api/install-app.ts';
import { AppConnection } from '../../features/apps/components/app-connection.tsx';
import { AppForm, redirectUrisFor } from '../../features/apps/components/app-form.tsx';
import { BuiltInCalendar, isBuiltInCalendar } from '../../features/apps/components/built-in-calendar.tsx';
import { InstallPreview } from '../../features/apps/components/install-preview.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { SecretOnce } from '../../features/apps/components/secret-once.tsx';
import { paths } from '../../lib/paths.ts';
import NotFoundPage from './not-found.tsx';

function initialValues(template: AppTemplate): UpdateAppBody {
  const templates = template.redirectUriTemplates;
  const redirectUris =
    templates.length === 0
      ? ['']
      : template.launchUrl
        ? redirectUrisFor(templates, template.launchUrl)
        : templates.map(() => '');
  return {
    title: template.title,
    launchUrl: template.launchUrl,
    redirectUris,
    postLogoutRedirectUris: template.launchUrl
      ? redirectUrisFor(template.postLogoutRedirectUriTemplates, template.launchUrl)
      : [],
    backchannelLogoutUri: '',
    openToEveryone: true,
    groupIds: [],
  };
}

/** Install one catalog app: its addresses and groups; then its secret, once, and its settings. */
export default function AppInstallPage() {
  const { templateKey = '' } = useParams();
  // Opened from the setup wizard's "Choose apps" step: Done goes back to the wizard.
  const fromSetup = useSearchParams()[0].get('from') === 'setup';
  const catalog = useCatalog();
  const groups = useGroupOptions();
  const install = useInstallApp();
  // Held only in this page's state: leaving the page forgets the secret for good.
  const [result, setResult] = useState<AppWithSecretResponse | null>(null);
  const template = catalog.data?.find((t) => t.key === templateKey);
  const builtIn = template ? isBuiltInCalendar(template) : false;
  usePageTitle(template ? (builtIn ? template.title : `Install ${template.title}`) : undefined);

  if (!catalog.isSuccess || !groups.isSuccess) {
    const error = catalog.error ?? groups.error;
    return (
      <QueryState
        error={error}
        what="the catalog"
        onRetry={() => {
          void catalog.refetch();
          void groups.refetch();
        }}
      />
    );
  }
  if (!template) return <NotFoundPage />;

  if (result) {
    return (
      <>
        <PageHeader
          title={`${result.app.title} is installed`}
          description="Configure the app with these settings so your users can sign in to it."
          actions={
            <Link to={fromSetup ? paths.setup() : paths.appDetail(result.app.id)} className="btn btn-primary">
              {fromSetup ? 'Back to setup' : 'Done'}
            </Link>
          }
        />
        <p className="d-flex align-items-center gap-2 text-success-emphasis" role="status">
          <CheckCircle2 size={18} aria-hidden="true" /> Its OpenID Connect client is registered.
        </p>
        <SecretOnce secret={result.clientSecret} />
        <AppConnection app={result.app} />
      </>
    );
  }

  const installForm = (
    <div className="row g-4">
      {/* Beside the form from 1200 px; above it on narrower screens, read before filling it in. */}
      <div className="col-12 col-xl-5 order-xl-last">
        <InstallPreview template={template} showInstructions={!builtIn} />
      </div>
      <div className="col-12 col-xl-7">
        <div className="card atrium-card">
          <div className="card-body">
            <AppForm
              defaultValues={initialValues(template)}
              groups={groups.data}
              redirectUriTemplates={template.redirectUriTemplates}
              postLogoutRedirectUriTemplates={template.postLogoutRedirectUriTemplates}
              submitLabel="Install"
              onSubmit={async (values) =>
                setResult(await install.mutateAsync({ ...values, templateKey: template.key }))
              }
            />
          </div>
        </div>
      </div>
    </div>
  );

  return (
    <>
      <PageHeader
        title={builtIn ? template.title : `Install ${template.title}`}
        description={template.description}
        actions={
          builtIn && fromSetup ? (
            <Link to={paths.setup()} className="btn btn-outline-secondary">
              Back to setup
            </Link>
          ) : (
            <img src={template.image} alt="" width={48} height={48} />
          )
        }
      />
      {builtIn ? <BuiltInCalendar template={template} advanced={installForm} /> : installForm}
    </>
  );
}
