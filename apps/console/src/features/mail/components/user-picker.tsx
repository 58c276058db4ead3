import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import ListGroup from 'react-bootstrap/ListGroup';
import { useUsersList } from '../../users/api/list-users.ts';

export interface PickedUser {
  id: string;
  name: string;
  email: string;
}

/** Finds a user of the organisation by the start of their name or address, and picks one. */
export function UserPicker({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: PickedUser | null;
  onChange: (user: PickedUser | null) => void;
}) {
  const [search, setSearch] = useState('');
  const q = search.trim();
  const candidates = useUsersList({ q, sort: 'name', dir: 'asc' }, { enabled: q !== '' && !value });
  const matches = q ? (candidates.data?.users ?? []).slice(0, 6) : [];

  if (value) {
    return (
      <div className="mb-2">
        <div className="form-label small mb-1">{label}</div>
        <div className="d-flex align-items-center gap-2 border rounded px-2 py-1">
          <span className="text-break small flex-grow-1" data-testid={`${id}-picked`}>
            {value.name} <span className="text-body-secondary">{value.email}</span>
          </span>
          <Button size="sm" variant="link" onClick={() => onChange(null)}>
            Change<span className="visually-hidden"> {label.toLowerCase()}</span>
          </Button>
        </div>
      </div>
    );
  }
  return (
    <Form.Group controlId={id} className="mb-2">
      <Form.Label className="small mb-1">{label}</Form.Label>
      <Form.Control
        type="search"
        placeholder="Name or e-mail, from the start"
        value={search}
        onChange={(e) => setSearch(e.target.value)}
      />
      {matches.length > 0 ? (
        <ListGroup className="mt-1" aria-label={`Users matching ${q}`}>
          {matches.map((user) => (
            <ListGroup.Item
              key={user.id}
              action
              type="button"
              className="text-break small"
              onClick={() => {
                onChange({ id: user.id, name: user.name, email: user.email });
                setSearch('');
              }}
            >
              {user.name} <span className="text-body-secondary">{user.email}</span>
            </ListGroup.Item>
          ))}
        </ListGroup>
      ) : q && candidates.data ? (
        <p className="small text-body-secondary mt-1 mb-0">Nobody matches.</p>
      ) : null}
    </Form.Group>
  );
}
