import type { SortDirection, UserSort, UserStatus } from '@atrium/contracts/users';
import { Search } from 'lucide-react';
import { useEffect, useState } from 'react';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';

export interface UsersFilter {
  q: string;
  status: UserStatus | '';
  sort: UserSort;
  dir: SortDirection;
}

const SORTS: Array<{ value: `${UserSort}:${SortDirection}`; label: string }> = [
  { value: 'name:asc', label: 'Name (A–Z)' },
  { value: 'name:desc', label: 'Name (Z–A)' },
  { value: 'email:asc', label: 'E-mail (A–Z)' },
  { value: 'email:desc', label: 'E-mail (Z–A)' },
  { value: 'lastSignIn:desc', label: 'Last sign-in (newest first)' },
  { value: 'lastSignIn:asc', label: 'Last sign-in (oldest first)' },
  { value: 'created:desc', label: 'Added (newest first)' },
  { value: 'created:asc', label: 'Added (oldest first)' },
];

/** Search (by name or e-mail prefix, applied after a short pause in typing), status and sort. */
export function UsersToolbar({
  filter,
  onChange,
}: {
  filter: UsersFilter;
  onChange: (f: UsersFilter) => void;
}) {
  const [text, setText] = useState(filter.q);
  // The search the box last applied; a different one came from outside (a "Clear" button, the address).
  const [applied, setApplied] = useState(filter.q);
  if (filter.q !== applied) {
    setApplied(filter.q);
    setText(filter.q);
  }
  useEffect(() => {
    const q = text.trim();
    if (q === filter.q) return;
    const timer = setTimeout(() => {
      setApplied(q);
      onChange({ ...filter, q });
    }, 300);
    return () => clearTimeout(timer);
  }, [text, filter, onChange]);

  return (
    <div className="row g-2 mb-3" role="search" aria-label="Filter users">
      <Form.Group className="col-md-6" controlId="users-search">
        <Form.Label className="small mb-1">Search users</Form.Label>
        <InputGroup>
          <InputGroup.Text aria-hidden="true">
            <Search size={16} />
          </InputGroup.Text>
          <Form.Control
            type="search"
            placeholder="Name or e-mail, from the start"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        </InputGroup>
      </Form.Group>
      <Form.Group className="col-6 col-md-3" controlId="users-status">
        <Form.Label className="small mb-1">Status</Form.Label>
        <Form.Select
          value={filter.status}
          onChange={(e) => onChange({ ...filter, status: e.target.value as UsersFilter['status'] })}
        >
          <option value="">All</option>
          <option value="active">Active</option>
          <option value="invited">Invited</option>
          <option value="suspended">Suspended</option>
        </Form.Select>
      </Form.Group>
      <Form.Group className="col-6 col-md-3" controlId="users-sort">
        <Form.Label className="small mb-1">Sort by</Form.Label>
        <Form.Select
          value={`${filter.sort}:${filter.dir}`}
          onChange={(e) => {
            const [sort, dir] = e.target.value.split(':') as [UserSort, SortDirection];
            onChange({ ...filter, sort, dir });
          }}
        >
          {SORTS.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </Form.Select>
      </Form.Group>
    </div>
  );
}
