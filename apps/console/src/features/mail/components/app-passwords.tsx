import type { AppPasswordView } from '@atrium/contracts/app-passwords';
import { KeyRound } from 'lucide-react';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { useConfirmDialog } from '../../../components/use-confirm-dialog.ts';
import { CopyField } from '../../../components/copy-button.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { dateTime, timeAgo } from '../../../lib/format-time.ts';
import { ErrorAlert } from '../../auth/components/error-alert.tsx';
import { useAppPasswords, useRevokeAppPassword } from '../api/app-passwords.ts';
import { NewAppPasswordForm } from './new-app-password-form.tsx';

/**
 * App passwords for mail clients that cannot sign in with the Atrium account (IMAP and SMTP):
 * create one (shown once), see when each was last used, revoke one.
 */
export function AppPasswords({ email }: { email: string }) {
  const list = useAppPasswords();
  const revoke = useRevokeAppPassword();
  const revocation = useConfirmDialog(revoke, (item: AppPasswordView) => item.id);
  const [created, setCreated] = useState<{ name: string; password: string } | null>(null);

  return (
    <>
      <p className="text-body-secondary small">
        For mail apps that cannot sign in with your Atrium account, such as a phone&apos;s built-in mail app:
        the user name is <span className="text-break">{email}</span> and the password is an app password.
      </p>
      <NewAppPasswordForm onCreated={(name, password) => setCreated({ name, password })} />
      {created ? (
        <Alert variant="warning" data-testid="app-password-once">
          <Alert.Heading as="h3" className="h6 d-flex align-items-center gap-2">
            <KeyRound size={18} aria-hidden="true" />
            Copy the app password for {created.name} now
          </Alert.Heading>
          <p className="small mb-2">
            This is the only time it is shown. If you lose it, revoke it and create another.
          </p>
          <CopyField id="app-password-value" label="App password" value={created.password} />
          <Button variant="outline-secondary" size="sm" onClick={() => setCreated(null)}>
            Done
          </Button>
        </Alert>
      ) : null}
      {list.isPending ? (
        <Spinner animation="border" size="sm" role="status" aria-label="Loading app passwords" />
      ) : list.isError ? (
        <ErrorAlert error={list.error instanceof ApiError ? list.error : null} />
      ) : list.data.length === 0 ? (
        <p className="text-body-secondary mb-0">No app passwords yet.</p>
      ) : (
        <ul className="list-group list-group-flush" aria-label="App passwords">
          {list.data.map((item) => (
            <li key={item.id} className="list-group-item d-flex align-items-center gap-3 px-0">
              <KeyRound size={20} aria-hidden="true" className="text-body-secondary flex-shrink-0" />
              <div className="min-w-0 flex-grow-1">
                <div className="fw-semibold text-break">{item.name}</div>
                <div className="small text-body-secondary">
                  Created {dateTime(item.createdAt)} ·{' '}
                  {item.lastUsedAt ? `last used ${timeAgo(item.lastUsedAt)}` : 'never used'}
                </div>
              </div>
              <Button
                variant="outline-danger"
                size="sm"
                onClick={() => revocation.ask(item)}
                aria-label={`Revoke app password ${item.name}`}
              >
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        {...revocation.dialog}
        title={`Revoke the app password ${revocation.target?.name ?? ''}?`}
        confirmLabel="Revoke"
        pendingLabel="Revoking…"
        errorTitle="The app password was not revoked"
      >
        <p className="mb-0">
          Mail apps that use it are refused at once, and it cannot be used again. Your other app passwords and
          your Atrium sign-in are not affected.
        </p>
      </ConfirmDialog>
    </>
  );
}
