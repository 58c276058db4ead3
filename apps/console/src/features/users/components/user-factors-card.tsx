import type { UserDetail } from '@atrium/contracts/users';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { SectionCard } from '../../../components/section-card.tsx';
import { userActions, useUserAction } from '../api/user-actions.ts';

/**
 * "Reset sign-in factors", for a user who lost their phone: their passkeys, authenticator app, recovery
 * codes and trusted browsers go; they sign in with password and e-mailed code again (and set up
 * a new app if the sign-in policy requires one). The user is e-mailed.
 */
export function UserFactorsCard({ user }: { user: UserDetail }) {
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState(false);
  const reset = useUserAction(user.id, () => userActions.resetSignInFactors(user.id), {
    onSuccess: () => {
      setConfirming(false);
      setDone(true);
    },
  });
  return (
    <SectionCard title="Sign-in factors" className="mb-4">
      {done ? (
        <Alert variant="success" dismissible onClose={() => setDone(false)}>
          The sign-in factors were reset. {user.email} was told by e-mail.
        </Alert>
      ) : null}
      <p className="small text-body-secondary">
        If {user.name} lost the phone with their authenticator app or passkey, remove them with their recovery
        codes and trusted browsers. They then sign in with password and e-mailed code.
      </p>
      <Button
        variant="outline-danger"
        onClick={() => {
          setDone(false);
          setConfirming(true);
        }}
      >
        Reset sign-in factors
      </Button>
      <ConfirmDialog
        show={confirming}
        title={`Reset the sign-in factors of ${user.name}?`}
        confirmLabel="Reset sign-in factors"
        pendingLabel="Resetting…"
        pending={reset.isPending}
        error={reset.error}
        errorTitle="The sign-in factors were not reset"
        onConfirm={() => reset.mutate(undefined)}
        onCancel={() => {
          setConfirming(false);
          reset.reset();
        }}
      >
        <p className="mb-0">
          Their passkeys, authenticator app, recovery codes and trusted browsers are removed, and they are
          told by e-mail. If the sign-in policy requires an app, they set up a new one at their next sign-in.
        </p>
      </ConfirmDialog>
    </SectionCard>
  );
}
