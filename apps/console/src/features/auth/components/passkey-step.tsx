import type { SecondFactor } from '@atrium/contracts/authenticator';
import { KeyRound } from 'lucide-react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import Button from 'react-bootstrap/Button';
import type { ApiError } from '../../../lib/api-client.ts';
import { signInWithPasskey } from '../api/passkey-sign-in.ts';
import { ErrorAlert } from './error-alert.tsx';
import { OtherWays } from './other-ways.tsx';
import { passkeyError } from './passkey-error.ts';
import { TrustBrowserCheck } from './trust-browser-check.tsx';

/**
 * Sign-in step 2 for an account with a passkey, its strongest factor: the browser asks for the
 * passkey (and its PIN or fingerprint); "Use another way" offers the others this sign-in allows.
 */
export function PasskeyStep({
  uid,
  email,
  otherWays,
  canTrustBrowser = false,
  onUseAnotherAccount,
}: {
  uid: string;
  email: string;
  otherWays: SecondFactor[];
  canTrustBrowser?: boolean;
  onUseAnotherAccount: () => void;
}) {
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [pending, setPending] = useState(false);
  const { register, getValues } = useForm<{ trustBrowser: boolean }>({
    defaultValues: { trustBrowser: false },
  });

  async function askForPasskey() {
    setFailure(null);
    setPending(true);
    try {
      window.location.assign(await signInWithPasskey(uid, false, getValues('trustBrowser')));
    } catch (error) {
      setFailure(passkeyError(error));
      setPending(false);
    }
  }

  return (
    <div className="text-start">
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <p className="text-body-secondary small">
        Use a passkey you saved for <strong className="text-break">{email}</strong>: your browser or phone
        will ask for it.
      </p>
      <div className="d-flex mb-4 small">
        <Button variant="link" size="sm" className="p-0 ms-auto" onClick={onUseAnotherAccount}>
          Use another account
        </Button>
      </div>
      {canTrustBrowser ? <TrustBrowserCheck registration={register('trustBrowser')} /> : null}
      <Button
        className="w-100 d-inline-flex align-items-center justify-content-center gap-2"
        disabled={pending}
        onClick={() => void askForPasskey()}
        autoFocus
      >
        <KeyRound size={16} aria-hidden="true" />
        {pending ? 'Waiting for your passkey…' : 'Use your passkey'}
      </Button>
      <OtherWays key="passkey" uid={uid} ways={otherWays} />
    </div>
  );
}
