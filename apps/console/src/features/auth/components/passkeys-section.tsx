import { useQueryClient } from '@tanstack/react-query';
import { KeyRound, Plus } from 'lucide-react';
import { useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { ApiError } from '../../../lib/api-client.ts';
import { dateTime } from '../../../lib/format-time.ts';
import { passkeysQuery, usePasskeys, useRemovePasskey } from '../api/passkeys.ts';
import { ErrorAlert } from './error-alert.tsx';
import { NewRecoveryCodesForm } from './new-recovery-codes-form.tsx';
import { PasskeyAddForm } from './passkey-add-form.tsx';
import { PasswordConfirmForm } from './password-confirm-form.tsx';
import { RecoveryCodesOnce } from './recovery-codes-once.tsx';

/**
 * /profile's "Passkeys" section (issue 17): several, each named, with when it was added and last
 * used; adding one and removing one ask for the password. The first strong factor brings the
 * recovery codes, shown once.
 */
export function PasskeysSection({ email }: { email: string }) {
  const list = usePasskeys();
  const remove = useRemovePasskey();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<string | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [regenerating, setRegenerating] = useState(false);
  const client = useQueryClient();

  if (codes) return <RecoveryCodesOnce email={email} codes={codes} onDone={() => setCodes(null)} />;
  if (list.isPending) {
    return <Spinner animation="border" size="sm" role="status" aria-label="Loading passkeys" />;
  }
  if (list.isError) return <ErrorAlert error={list.error instanceof ApiError ? list.error : null} />;
  const { passkeys, recoveryCodesLeft } = list.data;

  return (
    <>
      <p className="text-body-secondary small">
        A passkey signs you in with your fingerprint, face or device PIN instead of your password and a code.
        It only works on this site, so it cannot be phished.
      </p>
      {passkeys.length > 0 ? (
        <ul className="list-unstyled mb-3" aria-label="Your passkeys">
          {passkeys.map((passkey) => (
            <li key={passkey.id} className="border-top py-3">
              <div className="d-flex align-items-start gap-3">
                <KeyRound size={20} aria-hidden="true" className="text-success flex-shrink-0 mt-1" />
                <div className="min-w-0 flex-grow-1">
                  <div className="fw-semibold text-break">
                    {passkey.name}{' '}
                    {passkey.synced ? (
                      <Badge bg="secondary-subtle" text="secondary-emphasis" className="fw-normal">
                        Synced
                      </Badge>
                    ) : null}
                  </div>
                  <div className="small text-body-secondary">
                    Added {dateTime(passkey.createdAt)} ·{' '}
                    {passkey.lastUsedAt ? `last used ${dateTime(passkey.lastUsedAt)}` : 'not used yet'}
                  </div>
                </div>
                {removing !== passkey.id ? (
                  <Button
                    variant="outline-danger"
                    size="sm"
                    className="flex-shrink-0"
                    aria-label={`Remove ${passkey.name}`}
                    onClick={() => setRemoving(passkey.id)}
                  >
                    Remove
                  </Button>
                ) : null}
              </div>
              {removing === passkey.id ? (
                <PasswordConfirmForm
                  id={`remove-passkey-password-${passkey.id}`}
                  intro={`“${passkey.name}” will no longer sign you in.`}
                  submitLabel="Remove the passkey"
                  pendingLabel="Removing…"
                  variant="danger"
                  onSubmit={async (body) => {
                    await remove.mutateAsync({ id: passkey.id, ...body });
                    setRemoving(null);
                  }}
                  onCancel={() => setRemoving(null)}
                />
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {recoveryCodesLeft !== null && !adding ? (
        regenerating ? (
          <NewRecoveryCodesForm
            id="passkeys-recovery-codes-password"
            onMade={(recoveryCodes) => {
              setRegenerating(false);
              setCodes(recoveryCodes);
              // The count here is this section's own.
              void client.invalidateQueries({ queryKey: passkeysQuery.queryKey });
            }}
            onCancel={() => setRegenerating(false)}
          />
        ) : (
          <div className="d-flex flex-wrap align-items-center gap-2 mb-3 small text-body-secondary">
            {recoveryCodesLeft} recovery code{recoveryCodesLeft === 1 ? '' : 's'} left
            <Button variant="outline-primary" size="sm" onClick={() => setRegenerating(true)}>
              New recovery codes
            </Button>
          </div>
        )
      ) : null}
      {regenerating ? null : adding ? (
        <PasskeyAddForm
          onAdded={(recoveryCodes) => {
            setAdding(false);
            if (recoveryCodes) setCodes(recoveryCodes);
          }}
          onCancel={() => setAdding(false)}
        />
      ) : (
        <Button className="d-inline-flex align-items-center gap-2" onClick={() => setAdding(true)}>
          <Plus size={16} aria-hidden="true" />
          Add a passkey
        </Button>
      )}
    </>
  );
}
