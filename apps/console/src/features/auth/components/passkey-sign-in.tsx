import { KeyRound } from 'lucide-react';
import { useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';
import type { ApiError } from '../../../lib/api-client.ts';
import { cancelPasskeyRequest, signInWithPasskey } from '../api/passkey-sign-in.ts';
import { ErrorAlert } from './error-alert.tsx';
import { passkeyError } from './passkey-error.ts';

/**
 * "Sign in with a passkey" on the password step: a button, and the browser's own offer in the
 * e-mail field's suggestions (conditional UI, `autocomplete="username webauthn"`) started once
 * the page is shown. Either signs in without the password.
 */
export function PasskeySignIn({ uid }: { uid: string }) {
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [pending, setPending] = useState(false);

  useEffect(() => {
    let live = true;
    void (async () => {
      const { browserSupportsWebAuthnAutofill } = await import('@simplewebauthn/browser');
      if (!live || !(await browserSupportsWebAuthnAutofill())) return;
      try {
        const redirectTo = await signInWithPasskey(uid, true);
        if (live) window.location.assign(redirectTo);
      } catch (error) {
        // The suggestion waits until the person picks it; closing it is no failure.
        const shown = passkeyError(error);
        if (live && shown && shown.status !== 0) setFailure(shown);
      }
    })();
    return () => {
      live = false;
      void cancelPasskeyRequest();
    };
  }, [uid]);

  async function signIn() {
    setFailure(null);
    setPending(true);
    try {
      window.location.assign(await signInWithPasskey(uid));
    } catch (error) {
      setFailure(passkeyError(error));
      setPending(false);
    }
  }

  return (
    <div className="mt-3">
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <Button
        variant="outline-secondary"
        className="w-100 d-inline-flex align-items-center justify-content-center gap-2"
        disabled={pending}
        onClick={() => void signIn()}
      >
        <KeyRound size={16} aria-hidden="true" />
        {pending ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
      </Button>
    </div>
  );
}
