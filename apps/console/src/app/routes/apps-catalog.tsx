import type { InstalledApp } from '@atrium/contracts/apps';
import { PageHeader } from '../../components/page-header.tsx';
import { useCatalog } from '../../features/apps/api/catalog.ts';
import { useInstalledApps } from '../../features/apps/api/installed-apps.ts';
import { CatalogCard } from '../../features/apps/components/catalog-card.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';

function installedByTemplate(apps: InstalledApp[]): Map<string, InstalledApp[]> {
  const groups = new Map<string, InstalledApp[]>();
  for (const app of apps) groups.set(app.templateKey, [...(groups.get(app.templateKey) ?? []), app]);
  return groups;
}

/** "Available apps": the catalog an admin installs from, marking what is installed already. */
export default function AppsCatalogPage() {
  const catalog = useCatalog();
  const installed = useInstalledApps();
  if (!catalog.isSuccess || !installed.isSuccess) {
    return (
      <>
        <PageHeader title="Add an app" />
        <QueryState
          error={catalog.error ?? installed.error}
          what="the catalog"
          onRetry={() => {
            void catalog.refetch();
            void installed.refetch();
          }}
        />
      </>
    );
  }
  const byTemplate = installedByTemplate(installed.data);
  return (
    <>
      <PageHeader
        title="Add an app"
        description="Choose an app. You set its addresses and who can open it on the next step."
      />
      <ul className="row g-3 list-unstyled mb-0" aria-label="Available apps">
        {catalog.data.map((template) => (
          <li key={template.key} className="col-12 col-md-6 col-xl-4">
            <CatalogCard template={template} installed={byTemplate.get(template.key) ?? []} />
          </li>
        ))}
      </ul>
    </>
  );
}
