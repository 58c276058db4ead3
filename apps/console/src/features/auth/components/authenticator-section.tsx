import type { AuthenticatorEnrolment } from '@atrium/contracts/authenticator';
import { ShieldCheck, Smartphone } from 'lucide-react';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { ApiError } from '../../../lib/api-client.ts';
import { dateTime } from '../../../lib/format-time.ts';
import { useAuthenticator, useRemoveAuthenticator, useStartEnrolment } from '../api/authenticator.ts';
import { AuthenticatorSetup } from './authenticator-setup.tsx';
import { ErrorAlert } from './error-alert.tsx';
import { NewRecoveryCodesForm } from './new-recovery-codes-form.tsx';
import { PasswordConfirmForm } from './password-confirm-form.tsx';
import { RecoveryCodesOnce } from './recovery-codes-once.tsx';

type Asking = 'regenerate' | 'remove' | null;

/**
 * /profile's "Authenticator app" section (issue 17): set one up (QR code, first code), then see
 * it with the recovery codes left; new recovery codes and removal ask for the password.
 */
export function AuthenticatorSection({ email }: { email: string }) {
  const status = useAuthenticator();
  const start = useStartEnrolment();
  const remove = useRemoveAuthenticator();
  const [enrolment, setEnrolment] = useState<AuthenticatorEnrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [asking, setAsking] = useState<Asking>(null);

  if (codes) return <RecoveryCodesOnce email={email} codes={codes} onDone={() => setCodes(null)} />;
  if (enrolment) {
    return (
      <AuthenticatorSetup
        enrolment={enrolment}
        onConfirmed={(recoveryCodes) => {
          setEnrolment(null);
          // Null when a passkey came first: its codes stay, and are not shown again.
          if (recoveryCodes) setCodes(recoveryCodes);
        }}
        onCancel={() => setEnrolment(null)}
      />
    );
  }
  if (status.isPending) {
    return <Spinner animation="border" size="sm" role="status" aria-label="Loading authenticator app" />;
  }
  if (status.isError) return <ErrorAlert error={status.error instanceof ApiError ? status.error : null} />;

  if (status.data.status === 'none') {
    return (
      <>
        <p className="text-body-secondary small">
          Sign in with a code from an app on your phone instead of a code by e-mail. Someone who learns your
          password still cannot sign in without your phone.
        </p>
        <ErrorAlert error={start.error instanceof ApiError ? start.error : null} />
        <Button
          className="d-inline-flex align-items-center gap-2"
          disabled={start.isPending}
          onClick={() => start.mutate(undefined, { onSuccess: setEnrolment })}
        >
          <Smartphone size={16} aria-hidden="true" />
          {start.isPending ? 'Preparing…' : 'Set up an authenticator app'}
        </Button>
      </>
    );
  }

  const left = status.data.recoveryCodesLeft;
  return (
    <>
      <div className="d-flex align-items-start gap-3">
        <ShieldCheck size={22} aria-hidden="true" className="text-success flex-shrink-0 mt-1" />
        <div className="min-w-0 flex-grow-1">
          <div className="fw-semibold">Authenticator app is on</div>
          <div className="small text-body-secondary">
            Added {status.data.addedAt ? dateTime(status.data.addedAt) : ''} · {left} recovery code
            {left === 1 ? '' : 's'} left
          </div>
        </div>
      </div>
      {asking === null ? (
        <div className="d-flex flex-wrap gap-2 mt-3">
          <Button variant="outline-primary" size="sm" onClick={() => setAsking('regenerate')}>
            New recovery codes
          </Button>
          <Button variant="outline-danger" size="sm" onClick={() => setAsking('remove')}>
            Remove
          </Button>
        </div>
      ) : asking === 'regenerate' ? (
        <NewRecoveryCodesForm
          id="recovery-codes-password"
          onMade={(recoveryCodes) => {
            setAsking(null);
            setCodes(recoveryCodes);
          }}
          onCancel={() => setAsking(null)}
        />
      ) : (
        <PasswordConfirmForm
          id="remove-authenticator-password"
          intro="Sign-in goes back to a code by e-mail, and your recovery codes stop working."
          submitLabel="Remove the app"
          pendingLabel="Removing…"
          variant="danger"
          onSubmit={async (body) => {
            await remove.mutateAsync(body);
            setAsking(null);
          }}
          onCancel={() => setAsking(null)}
        />
      )}
    </>
  );
}
