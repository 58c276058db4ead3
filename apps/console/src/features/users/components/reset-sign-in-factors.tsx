import type { ResetSignInFactorsInput } from '@atrium/contracts/user-factors';
import type { UserDetail } from '@atrium/contracts/users';
import { useId, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { useConfirmDialog } from '../../../components/use-confirm-dialog.ts';
import { userActions, useUserAction } from '../api/user-actions.ts';

/**
 * "Reset sign-in factors" for a user who lost everything, and optionally their app passwords: a
 * lost phone usually holds one, and mail, calendar and contacts apps sign in with it alone. Off by
 * default, since revoking them means setting up every device again.
 */
export function ResetSignInFactors({
  user,
  onAsk,
  onDone,
}: {
  user: UserDetail;
  /** The dialog opens: an earlier message goes. */
  onAsk: () => void;
  /** What was done, in words for the card's message. */
  onDone: (message: string) => void;
}) {
  const helpId = useId();
  const [revokeAppPasswords, setRevokeAppPasswords] = useState(false);
  const reset = useUserAction(
    user.id,
    (input: ResetSignInFactorsInput) => userActions.resetSignInFactors(user.id, input).then(() => input),
    {
      onSuccess: (input) =>
        onDone(
          `${input.revokeAppPasswords ? 'The sign-in factors were reset and the app passwords revoked.' : 'The sign-in factors were reset.'} ${user.email} was told by e-mail.`,
        ),
    },
  );
  const dialog = useConfirmDialog(reset, (): ResetSignInFactorsInput => ({ revokeAppPasswords }));
  return (
    <>
      <p className="small text-body-secondary mt-3">
        If {user.name} lost the phone with their authenticator app or passkey, remove them all with their
        recovery codes and trusted browsers. They then sign in with password and e-mailed code.
      </p>
      <Button
        variant="outline-danger"
        onClick={() => {
          onAsk();
          setRevokeAppPasswords(false);
          dialog.ask(true);
        }}
      >
        Reset sign-in factors
      </Button>
      <ConfirmDialog
        {...dialog.dialog}
        title={`Reset the sign-in factors of ${user.name}?`}
        confirmLabel="Reset sign-in factors"
        pendingLabel="Resetting…"
        errorTitle="The sign-in factors were not reset"
      >
        <p>
          Their passkeys, authenticator app, recovery codes and trusted browsers are removed, and they are
          told by e-mail. If the sign-in policy requires an app, they set up a new one at their next sign-in.
        </p>
        <Form.Group controlId={`${helpId}-revoke`} className="mb-0">
          <Form.Check
            type="checkbox"
            label="Also revoke their app passwords"
            checked={revokeAppPasswords}
            disabled={dialog.dialog.pending}
            onChange={(event) => setRevokeAppPasswords(event.target.checked)}
            aria-describedby={`${helpId}-help`}
          />
          <Form.Text id={`${helpId}-help`} className="small d-block ms-4">
            Mail, calendar and contacts apps on their phone and computers stop signing in at once, and each
            must be set up again with a new app password. Choose this if a lost or stolen device had one.
          </Form.Text>
        </Form.Group>
      </ConfirmDialog>
    </>
  );
}
