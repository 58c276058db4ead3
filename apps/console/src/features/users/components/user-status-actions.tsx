import type { UserDetail } from '@atrium/contracts/users';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import { useNavigate } from 'react-router';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { paths } from '../../../lib/paths.ts';
import { userActions, useUserAction } from '../api/user-actions.ts';
import { ActionError } from './action-error.tsx';

/** Suspend / reactivate and delete; suspend and delete ask first. Not offered for yourself. */
export function UserStatusActions({ user }: { user: UserDetail }) {
  const navigate = useNavigate();
  const [asking, setAsking] = useState<'suspend' | 'delete' | null>(null);
  const suspend = useUserAction(user.id, () => userActions.suspend(user.id), {
    onSuccess: () => setAsking(null),
  });
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
  const cancel = () => {
    setAsking(null);
    suspend.reset();
    remove.reset();
  };
  return (
    <>
      <ActionError
        title="The user could not be reactivated"
        error={reactivate.error}
        onClose={() => reactivate.reset()}
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
          <Button variant="outline-warning" onClick={() => setAsking('suspend')}>
            Suspend
          </Button>
        )}
        <Button variant="outline-danger" onClick={() => setAsking('delete')}>
          Delete
        </Button>
      </div>
      <ConfirmDialog
        show={asking === 'suspend'}
        title={`Suspend ${user.name}?`}
        confirmLabel="Suspend"
        pendingLabel="Suspending…"
        pending={suspend.isPending}
        error={suspend.error}
        errorTitle="The user was not suspended"
        onConfirm={() => suspend.mutate(undefined)}
        onCancel={cancel}
      >
        <p className="mb-0">
          {user.name} will be signed out everywhere, in the console and in every app, and cannot sign in until
          reactivated.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        show={asking === 'delete'}
        title={`Delete ${user.name}?`}
        confirmLabel="Delete user"
        pendingLabel="Deleting…"
        pending={remove.isPending}
        error={remove.error}
        errorTitle="The user was not deleted"
        onConfirm={() => remove.mutate(undefined)}
        onCancel={cancel}
      >
        <p className="mb-0">
          {user.name} ({user.email}) will be signed out everywhere and removed with their group memberships.
          This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}
