import type { UserDetail } from '@atrium/contracts/users';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import { useNavigate } from 'react-router';
import { paths } from '../../../lib/paths.ts';
import { userActions, useUserAction } from '../api/user-actions.ts';
import { ActionError } from './action-error.tsx';

/** Suspend / reactivate and delete (behind a confirmation). Not offered for yourself. */
export function UserStatusActions({ user }: { user: UserDetail }) {
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const suspend = useUserAction(user.id, () => userActions.suspend(user.id));
  const reactivate = useUserAction(user.id, () => userActions.reactivate(user.id));
  const remove = useUserAction(user.id, () => userActions.remove(user.id), {
    keepDetail: false,
    onSuccess: () => navigate(paths.users()),
  });
  if (user.isSelf) {
    return (
      <p className="small text-body-secondary mb-0">This is you: you cannot suspend or delete yourself.</p>
    );
  }
  return (
    <>
      <ActionError
        title={
          user.status === 'suspended'
            ? 'The user could not be reactivated'
            : 'The user could not be suspended'
        }
        error={suspend.error ?? reactivate.error}
        onClose={() => {
          suspend.reset();
          reactivate.reset();
        }}
      />
      <div className="d-flex flex-wrap gap-2">
        {user.status === 'suspended' ? (
          <Button
            variant="outline-success"
            disabled={reactivate.isPending}
            onClick={() => reactivate.mutate(undefined)}
          >
            Reactivate
          </Button>
        ) : (
          <Button
            variant="outline-warning"
            disabled={suspend.isPending}
            onClick={() => suspend.mutate(undefined)}
          >
            Suspend
          </Button>
        )}
        <Button variant="outline-danger" onClick={() => setConfirming(true)}>
          Delete
        </Button>
      </div>
      <Modal
        show={confirming}
        onHide={() => setConfirming(false)}
        centered
        aria-labelledby="delete-user-title"
      >
        <Modal.Header closeButton closeLabel="Cancel">
          <Modal.Title id="delete-user-title" as="h2" className="h5">
            Delete {user.name}?
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <ActionError title="The user could not be deleted" error={remove.error} />
          <p className="mb-0">
            {user.email} will be signed out everywhere and removed with their group memberships. This cannot
            be undone.
          </p>
        </Modal.Body>
        <Modal.Footer>
          <Button variant="outline-secondary" onClick={() => setConfirming(false)}>
            Cancel
          </Button>
          <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate(undefined)}>
            Delete user
          </Button>
        </Modal.Footer>
      </Modal>
    </>
  );
}
