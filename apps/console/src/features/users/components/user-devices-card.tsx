import type { AppPasswordView } from '@atrium/contracts/app-passwords';
import type { UserDetail } from '@atrium/contracts/users';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import ListGroup from 'react-bootstrap/ListGroup';
import Spinner from 'react-bootstrap/Spinner';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { SectionCard } from '../../../components/section-card.tsx';
import { useConfirmDialog } from '../../../components/use-confirm-dialog.ts';
import { useUserAction } from '../api/user-actions.ts';
import { userAppPasswordActions, useUserAppPasswords } from '../api/user-app-passwords.ts';
import { formatDateTime } from './format.ts';

/**
 * The user's devices as their admin sees them: each app password (mail, calendar and contacts
 * apps sign in with one) with when it was made and last used. Revoking one, after asking, shuts
 * out a lost phone at once without suspending the user or changing their password.
 */
export function UserDevicesCard({ user }: { user: UserDetail }) {
  const devices = useUserAppPasswords(user.id);
  const [done, setDone] = useState<string | null>(null);
  const revoke = useUserAction(
    user.id,
    (device: AppPasswordView) => userAppPasswordActions.revoke(user.id, device.id).then(() => device.name),
    {
      onSuccess: (name) =>
        setDone(`The app password “${name}” was revoked: that device can no longer sign in.`),
    },
  );
  const revocation = useConfirmDialog(revoke, (device: AppPasswordView) => device);

  return (
    <SectionCard title="Devices" className="mb-4">
      {done ? (
        <Alert variant="success" dismissible onClose={() => setDone(null)}>
          {done}
        </Alert>
      ) : null}
      {!devices.data ? (
        devices.error ? (
          <Alert variant="danger" className="mb-0">
            <p className="mb-2">The devices could not be loaded: {devices.error.message}</p>
            <Button variant="outline-danger" size="sm" onClick={() => void devices.refetch()}>
              Try again
            </Button>
          </Alert>
        ) : (
          <p className="text-body-secondary mb-0" role="status">
            <Spinner animation="border" size="sm" className="me-2" aria-hidden="true" />
            Loading the devices…
          </p>
        )
      ) : devices.data.length === 0 ? (
        <p className="text-body-secondary mb-0">No devices: this user has no app passwords.</p>
      ) : (
        <>
          <p className="small text-body-secondary">
            Mail, calendar and contacts apps sign in with an app password each.
          </p>
          <ListGroup as="ul" aria-label={`Devices of ${user.name}`}>
            {devices.data.map((device) => (
              <ListGroup.Item as="li" key={device.id} className="d-flex align-items-center gap-3">
                <div className="small min-w-0 flex-grow-1">
                  <div className="fw-semibold text-break">{device.name}</div>
                  <div className="text-body-secondary">Created: {formatDateTime(device.createdAt)}</div>
                  <div className="text-body-secondary">
                    Last used: {formatDateTime(device.lastUsedAt, 'never')}
                  </div>
                </div>
                <Button
                  variant="outline-danger"
                  size="sm"
                  className="flex-shrink-0"
                  aria-label={`Revoke app password ${device.name}`}
                  onClick={() => {
                    setDone(null);
                    revocation.ask(device);
                  }}
                >
                  Revoke
                </Button>
              </ListGroup.Item>
            ))}
          </ListGroup>
        </>
      )}
      <ConfirmDialog
        {...revocation.dialog}
        title={`Revoke the app password “${revocation.target?.name ?? ''}” of ${user.name}?`}
        confirmLabel="Revoke"
        pendingLabel="Revoking…"
        errorTitle="The app password was not revoked"
      >
        <p className="mb-0">
          The device that uses it stops signing in to mail, calendars and contacts at once. {user.name}’s
          other devices, password and sessions are not affected; to use that device again, they create a new
          app password.
        </p>
      </ConfirmDialog>
    </SectionCard>
  );
}
