import { Download, History } from 'lucide-react';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { EmptyState } from '../../components/empty-state.tsx';
import { OlderEntriesFooter } from '../../components/load-more-button.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { activityExportUrl, useActivityPages } from '../../features/activity/api/get-activity.ts';
import { ActivityFilters } from '../../features/activity/components/activity-filters.tsx';
import { ActivityList } from '../../features/activity/components/activity-list.tsx';
import { filterFromSearch, searchFromFilter } from '../../features/activity/components/filter-values.ts';
import { LoadError } from '../../components/load-error.tsx';

/** The organisation's activity log for admins: filters, pages of 50, CSV export. */
export default function ActivityPage() {
  const [search, setSearch] = useSearchParams();
  const filter = useMemo(() => filterFromSearch(search), [search]);
  const pages = useActivityPages(filter);
  const entries = pages.data?.pages.flatMap((page) => page.items) ?? [];
  const filtered = Object.keys(filter).length > 0;

  return (
    <>
      <PageHeader
        title="Activity"
        description="Every change made in your organisation: who, what, when and from where. Entries cannot be edited or deleted."
        actions={
          <a className="btn btn-outline-primary btn-sm" href={activityExportUrl(filter)} download>
            <Download size={16} className="me-1" aria-hidden="true" />
            Export CSV
          </a>
        }
      />
      <ActivityFilters filter={filter} onApply={(next) => setSearch(searchFromFilter(next))} />
      {pages.isPending ? (
        <p className="text-body-secondary" role="status">
          Loading activity…
        </p>
      ) : pages.isError ? (
        <LoadError
          title="The activity log could not be loaded"
          message={pages.error.message}
          onRetry={() => void pages.refetch()}
        />
      ) : entries.length === 0 ? (
        <EmptyState icon={History} title={filtered ? 'Nothing matches these filters' : 'No activity yet'}>
          {filtered
            ? 'Try another person, kind or date range.'
            : 'Changes to the organisation, its domains, users, groups and apps will be listed here.'}
        </EmptyState>
      ) : (
        <div className="card atrium-card">
          <ActivityList entries={entries} />
          <OlderEntriesFooter pages={pages} label="Show older entries" />
        </div>
      )}
    </>
  );
}
