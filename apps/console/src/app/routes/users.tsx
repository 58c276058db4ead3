import { Download, Plus, UserRound } from 'lucide-react';
import {
  USERS_PAGE_SIZE,
  userSortSchema,
  userStatusSchema,
  sortDirectionSchema,
} from '@atrium/contracts/users';
import { useCallback, useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';
import { Link, useSearchParams } from 'react-router';
import { EmptyState } from '../../components/empty-state.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { QueryState } from '../../features/apps/components/query-state.tsx';
import { useUsersList } from '../../features/users/api/list-users.ts';
import { UsersTable } from '../../features/users/components/users-table.tsx';
import { UsersToolbar, type UsersFilter } from '../../features/users/components/users-toolbar.tsx';
import { paths, serverPaths } from '../../lib/paths.ts';

const FIRST_FILTER: UsersFilter = { q: '', status: '', sort: 'name', dir: 'asc' };

/** Search, status and sort live in the address, so going back from a user's page keeps them. */
function filterFrom(params: URLSearchParams): UsersFilter {
  return {
    q: params.get('q') ?? '',
    status: userStatusSchema.safeParse(params.get('status')).data ?? '',
    sort: userSortSchema.safeParse(params.get('sort')).data ?? 'name',
    dir: sortDirectionSchema.safeParse(params.get('dir')).data ?? 'asc',
  };
}

export default function UsersPage() {
  const [params, setParams] = useSearchParams();
  const filter = filterFrom(params);
  // Keyset pages: the cursors of the pages visited so far, so "Previous" goes back exactly.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const page = cursors.length;
  const query = {
    sort: filter.sort,
    dir: filter.dir,
    ...(filter.q ? { q: filter.q } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(cursors.at(-1) ? { cursor: cursors.at(-1) } : {}),
  };
  const users = useUsersList(query);
  // The first page says how many match; later pages keep that figure.
  const [total, setTotal] = useState<number | null>(null);
  const firstPageTotal = users.data?.total;
  useEffect(() => {
    if (firstPageTotal != null) setTotal(firstPageTotal);
  }, [firstPageTotal]);
  const pages = total === null ? null : Math.max(1, Math.ceil(total / USERS_PAGE_SIZE));
  const changeFilter = useCallback(
    (next: UsersFilter) => {
      const search = new URLSearchParams();
      if (next.q) search.set('q', next.q);
      if (next.status) search.set('status', next.status);
      if (next.sort !== 'name') search.set('sort', next.sort);
      if (next.dir !== 'asc') search.set('dir', next.dir);
      setParams(search, { replace: true });
      setCursors([undefined]);
    },
    [setParams],
  );
  const filtered = filter.q !== '' || filter.status !== '';
  const exportHref = serverPaths.usersExport({
    q: filter.q || undefined,
    status: filter.status || undefined,
    sort: filter.sort,
    dir: filter.dir,
  });

  return (
    <>
      <PageHeader
        title="Users"
        description="Everyone who can sign in to your organisation’s apps."
        actions={
          <>
            <a
              href={exportHref}
              className="btn btn-outline-secondary d-inline-flex align-items-center gap-2"
              download
            >
              <Download size={18} aria-hidden="true" />
              Export CSV
            </a>
            <Link to={paths.addUser()} className="btn btn-primary d-inline-flex align-items-center gap-2">
              <Plus size={18} aria-hidden="true" />
              Add a user
            </Link>
          </>
        }
      />
      <div className="card atrium-card">
        <div className="card-body">
          <UsersToolbar filter={filter} onChange={changeFilter} />
          {users.data ? (
            users.data.users.length === 0 ? (
              <EmptyState
                icon={UserRound}
                title={filtered ? 'No users match' : 'No users yet'}
                action={
                  filtered ? (
                    <Button variant="outline-secondary" onClick={() => changeFilter(FIRST_FILTER)}>
                      Clear search and filter
                    </Button>
                  ) : (
                    <Link to={paths.addUser()} className="btn btn-primary">
                      Add a user
                    </Link>
                  )
                }
              >
                {filtered
                  ? 'Search matches the start of a first name, last name or e-mail address.'
                  : 'Add the people in your organisation so they can sign in once and open every app.'}
              </EmptyState>
            ) : (
              <>
                <UsersTable users={users.data.users} />
                <nav
                  className="d-flex align-items-center justify-content-between mt-3"
                  aria-label="Users pages"
                >
                  <Button
                    variant="outline-secondary"
                    disabled={page === 1 || users.isFetching}
                    onClick={() => setCursors((c) => c.slice(0, -1))}
                  >
                    Previous
                  </Button>
                  <span className="small text-body-secondary" aria-live="polite">
                    Page {page}
                    {pages === null ? '' : ` of ${pages.toLocaleString('en')}`}
                    {total === null
                      ? ''
                      : ` · ${total.toLocaleString('en')} ${total === 1 ? 'user' : 'users'}`}
                  </span>
                  <Button
                    variant="outline-secondary"
                    disabled={!users.data.nextCursor || users.isFetching}
                    onClick={() => setCursors((c) => [...c, users.data.nextCursor ?? undefined])}
                  >
                    Next
                  </Button>
                </nav>
              </>
            )
          ) : (
            <QueryState error={users.error} what="users" onRetry={() => void users.refetch()} />
          )}
        </div>
      </div>
    </>
  );
}
