import type { AuthenticatorEnrolment } from '@atrium/contracts/authenticator';
import { ShieldCheck } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { ApiError } from '../../../lib/api-client.ts';
import { useConfirmSignInEnrolment, useStartSignInEnrolment } from '../api/interaction.ts';
import { AuthenticatorSetup } from './authenticator-setup.tsx';
import { ErrorAlert } from './error-alert.tsx';
import { RecoveryCodesOnce } from './recovery-codes-once.tsx';

/**
 * The organisation requires an authenticator app this account does not have yet (issue 17 item
 * 5): set it up here, save the recovery codes, and only then go on to the app that asked.
 */
export function EnrolmentStep({ uid, email }: { uid: string; email: string }) {
  const start = useStartSignInEnrolment(uid);
  const confirm = useConfirmSignInEnrolment(uid);
  const [enrolment, setEnrolment] = useState<AuthenticatorEnrolment | null>(null);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [done, setDone] = useState<{ recoveryCodes: string[] | null; redirectTo: string } | null>(null);
  const started = useRef(false);

  useEffect(() => {
    // Once per page: a second secret would replace the one on the screen.
    if (started.current) return;
    started.current = true;
    start
      .mutateAsync()
      .then(setEnrolment)
      .catch((error: unknown) =>
        setFailure(
          error instanceof ApiError ? error : new ApiError(0, { code: 'error', message: String(error) }),
        ),
      );
  }, [start]);

  if (done?.recoveryCodes) {
    return (
      <div className="text-start">
        <RecoveryCodesOnce
          email={email}
          codes={done.recoveryCodes}
          onDone={() => window.location.assign(done.redirectTo)}
        />
      </div>
    );
  }
  return (
    <div className="text-start">
      <h2 className="h6 d-flex align-items-center gap-2">
        <ShieldCheck size={18} aria-hidden="true" />
        Set up an authenticator app
      </h2>
      <p className="text-body-secondary small">
        Your organisation asks <strong className="text-break">{email}</strong> to sign in with an
        authenticator app. Set one up now to finish signing in.
      </p>
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      {enrolment ? (
        <AuthenticatorSetup
          enrolment={enrolment}
          stacked
          confirmWith={async (body) => {
            const result = await confirm.mutateAsync(body);
            // Without new codes to show, the sign-in goes straight on.
            if (result.recoveryCodes) setDone(result);
            else window.location.assign(result.redirectTo);
            return result;
          }}
          onConfirmed={() => undefined}
        />
      ) : failure ? (
        <Button href="/login" variant="primary" size="sm">
          Start again
        </Button>
      ) : (
        <Spinner animation="border" size="sm" role="status" aria-label="Loading" />
      )}
    </div>
  );
}
