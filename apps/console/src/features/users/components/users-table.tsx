import type { UserSummary } from '@atrium/contracts/users';
import Badge from 'react-bootstrap/Badge';
import Table from 'react-bootstrap/Table';
import { Link } from 'react-router';
import { paths } from '../../../lib/paths.ts';
import { formatDateTime } from './format.ts';
import { UserStatusBadge } from './user-status-badge.tsx';

/** Name, e-mail, groups, status, last sign-in; the name opens the user's page. */
export function UsersTable({ users }: { users: UserSummary[] }) {
  return (
    <div className="table-responsive">
      <Table hover className="align-middle mb-0">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col" className="d-none d-md-table-cell">
              E-mail
            </th>
            <th scope="col" className="d-none d-lg-table-cell">
              Groups
            </th>
            <th scope="col">Status</th>
            <th scope="col" className="d-none d-sm-table-cell">
              Last sign-in
            </th>
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <tr key={user.id}>
              <td className="text-break">
                <Link to={paths.userDetail(user.id)} className="fw-semibold">
                  {user.name}
                </Link>
                <div className="small text-body-secondary d-md-none">{user.email}</div>
              </td>
              <td className="d-none d-md-table-cell text-break">{user.email}</td>
              <td className="d-none d-lg-table-cell">
                <div className="d-flex flex-wrap gap-1">
                  {user.groups.map((group) => (
                    <Badge
                      key={group.id}
                      bg={group.isSystem ? 'primary' : 'light'}
                      text={group.isSystem ? undefined : 'dark'}
                      className="border"
                    >
                      {group.name}
                    </Badge>
                  ))}
                </div>
              </td>
              <td>
                <UserStatusBadge status={user.status} />
              </td>
              <td className="d-none d-sm-table-cell text-nowrap small">
                {formatDateTime(user.lastSignInAt)}
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}
