import type { SecondFactor } from '@atrium/contracts/authenticator';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import { ApiError } from '../../../lib/api-client.ts';
import { useChooseFactor } from '../api/interaction.ts';
import { ErrorAlert } from './error-alert.tsx';

const LABELS: Record<SecondFactor, string> = {
  passkey: 'Use a passkey',
  totp: 'Use your authenticator app',
  email: 'Send a code by e-mail',
  recovery: 'Use a recovery code',
};

/**
 * "Use another way": the other factors this sign-in allows, offered once the password was right
 * (the server decides which; an app asking for a strong sign-in gets no e-mail).
 */
export function OtherWays({ uid, ways }: { uid: string; ways: SecondFactor[] }) {
  const choose = useChooseFactor(uid);
  const [open, setOpen] = useState(false);
  if (ways.length === 0) return null;
  return (
    <div className="mt-3 small">
      <ErrorAlert
        error={choose.error instanceof ApiError ? choose.error : null}
        onClose={() => choose.reset()}
      />
      {open ? (
        <>
          <p className="text-body-secondary mb-2">Other ways to sign in</p>
          <ul className="list-unstyled mb-0 d-grid gap-2" aria-label="Other ways to sign in">
            {ways.map((way) => (
              <li key={way}>
                <Button
                  variant="outline-secondary"
                  size="sm"
                  className="w-100"
                  disabled={choose.isPending}
                  onClick={() => choose.mutate(way)}
                >
                  {LABELS[way]}
                </Button>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <Button variant="link" size="sm" className="p-0" onClick={() => setOpen(true)} aria-expanded={open}>
          Use another way
        </Button>
      )}
    </div>
  );
}
