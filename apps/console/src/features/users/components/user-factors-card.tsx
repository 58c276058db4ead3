import type { AdminPasskeyItem, AdminTrustedBrowserItem } from '@atrium/contracts/user-factors';
import type { UserDetail } from '@atrium/contracts/users';
import { useState, type ReactNode } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import ListGroup from 'react-bootstrap/ListGroup';
import Spinner from 'react-bootstrap/Spinner';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { SectionCard } from '../../../components/section-card.tsx';
import { useConfirmDialog } from '../../../components/use-confirm-dialog.ts';
import { useUserAction } from '../api/user-actions.ts';
import { userFactorActions, useUserFactors } from '../api/user-factors.ts';
import { formatDateTime } from './format.ts';
import { ResetSignInFactors } from './reset-sign-in-factors.tsx';

/**
 * The user's strong sign-in factors as their admin sees them: passkeys, the authenticator app,
 * recovery codes left and trusted browsers. The admin can remove one (a lost phone's passkey, a
 * shared computer's trust) or, for a user who lost everything, reset them all: they then sign in
 * with password and e-mailed code (and set up a new factor if the sign-in policy requires one).
 * The user is e-mailed either way.
 */
export function UserFactorsCard({ user }: { user: UserDetail }) {
  const factors = useUserFactors(user.id);
  const [done, setDone] = useState<string | null>(null);
  const told = `${user.email} was told by e-mail.`;

  // Each removal answers with what it removed, for the message once it is done.
  const removePasskey = useUserAction(
    user.id,
    (passkey: AdminPasskeyItem) =>
      userFactorActions.removePasskey(user.id, passkey.id).then(() => passkey.name),
    { onSuccess: (name) => setDone(`The passkey “${name}” was removed. ${told}`) },
  );
  const passkeyRemoval = useConfirmDialog(removePasskey, (passkey: AdminPasskeyItem) => passkey);
  const removeApp = useUserAction(user.id, () => userFactorActions.removeAuthenticator(user.id), {
    onSuccess: () => setDone(`The authenticator app was removed. ${told}`),
  });
  const appRemoval = useConfirmDialog(removeApp, () => undefined);
  const removeBrowser = useUserAction(
    user.id,
    (browser: AdminTrustedBrowserItem) =>
      userFactorActions.removeTrustedBrowser(user.id, browser.id).then(() => browser.browser),
    { onSuccess: (name) => setDone(`${name} is no longer trusted. ${told}`) },
  );
  const browserRemoval = useConfirmDialog(removeBrowser, (browser: AdminTrustedBrowserItem) => browser);

  const ask =
    <T,>(open: (item: T) => void) =>
    (item: T) => {
      setDone(null);
      open(item);
    };
  const f = factors.data;
  return (
    <SectionCard title="Sign-in factors" className="mb-4">
      {done ? (
        <Alert variant="success" dismissible onClose={() => setDone(null)}>
          {done}
        </Alert>
      ) : null}
      {!f ? (
        factors.error ? (
          <Alert variant="danger">
            <p className="mb-2">The sign-in factors could not be loaded: {factors.error.message}</p>
            <Button variant="outline-danger" size="sm" onClick={() => void factors.refetch()}>
              Try again
            </Button>
          </Alert>
        ) : (
          <p className="text-body-secondary" role="status">
            <Spinner animation="border" size="sm" className="me-2" aria-hidden="true" />
            Loading the sign-in factors…
          </p>
        )
      ) : (
        <>
          <FactorHeading>Passkeys</FactorHeading>
          {f.passkeys.length === 0 ? (
            <p className="small text-body-secondary">None.</p>
          ) : (
            <ListGroup className="mb-3">
              {f.passkeys.map((passkey) => (
                <FactorItem
                  key={passkey.id}
                  name={passkey.name}
                  details={`added ${formatDateTime(passkey.createdAt)} · last used ${formatDateTime(passkey.lastUsedAt, 'never')}`}
                  action={
                    <Button
                      variant="outline-danger"
                      size="sm"
                      aria-label={`Remove passkey ${passkey.name}`}
                      onClick={() => ask(passkeyRemoval.ask)(passkey)}
                    >
                      Remove
                    </Button>
                  }
                />
              ))}
            </ListGroup>
          )}

          <FactorHeading>Authenticator app</FactorHeading>
          {f.authenticator ? (
            <ListGroup className="mb-3">
              <FactorItem
                name="Authenticator app"
                details={`set up ${formatDateTime(f.authenticator.since)}`}
                action={
                  <Button
                    variant="outline-danger"
                    size="sm"
                    aria-label="Remove authenticator app"
                    onClick={() => ask(appRemoval.ask)(undefined)}
                  >
                    Remove
                  </Button>
                }
              />
            </ListGroup>
          ) : (
            <p className="small text-body-secondary">None.</p>
          )}
          {f.passkeys.length > 0 || f.authenticator ? (
            <p className="small text-body-secondary">
              Recovery codes left: {f.recoveryCodesLeft} of 10. They go with the last passkey or app.
            </p>
          ) : null}

          <FactorHeading>Trusted browsers</FactorHeading>
          {f.trustedBrowsers.length === 0 ? (
            <p className="small text-body-secondary">None.</p>
          ) : (
            <ListGroup className="mb-3">
              {f.trustedBrowsers.map((browser, index) => (
                <FactorItem
                  key={browser.id}
                  name={browser.browser}
                  details={`trusted ${formatDateTime(browser.trustedAt)} until ${formatDateTime(browser.trustedUntil)} · last used ${formatDateTime(browser.lastUsedAt, 'never')}`}
                  action={
                    <Button
                      variant="outline-danger"
                      size="sm"
                      aria-label={`Stop trusting browser ${index + 1}, ${browser.browser}`}
                      onClick={() => ask(browserRemoval.ask)(browser)}
                    >
                      Stop trusting
                    </Button>
                  }
                />
              ))}
            </ListGroup>
          )}
        </>
      )}

      <ResetSignInFactors user={user} onAsk={() => setDone(null)} onDone={setDone} />

      <ConfirmDialog
        {...passkeyRemoval.dialog}
        title={`Remove the passkey “${passkeyRemoval.target?.name ?? ''}” of ${user.name}?`}
        confirmLabel="Remove passkey"
        pendingLabel="Removing…"
        errorTitle="The passkey was not removed"
      >
        <p className="mb-0">
          It can no longer sign in to their account. Without another passkey or an authenticator app, their
          recovery codes go too. They are told by e-mail.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        {...appRemoval.dialog}
        title={`Remove the authenticator app of ${user.name}?`}
        confirmLabel="Remove app"
        pendingLabel="Removing…"
        errorTitle="The authenticator app was not removed"
      >
        <p className="mb-0">
          Its codes no longer sign in. Without a passkey, their recovery codes go too, and they sign in with
          an e-mailed code (or set up a new app if the sign-in policy requires one). They are told by e-mail.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        {...browserRemoval.dialog}
        title={`Stop trusting ${browserRemoval.target?.browser ?? 'this browser'} for ${user.name}?`}
        confirmLabel="Stop trusting"
        pendingLabel="Removing…"
        errorTitle="The browser is still trusted"
      >
        <p className="mb-0">Its next sign-in asks for their second factor again. They are told by e-mail.</p>
      </ConfirmDialog>
    </SectionCard>
  );
}

function FactorHeading({ children }: { children: ReactNode }) {
  return <h3 className="h6 mb-2">{children}</h3>;
}

function FactorItem({ name, details, action }: { name: string; details: string; action: ReactNode }) {
  return (
    <ListGroup.Item className="d-flex flex-wrap align-items-center justify-content-between gap-2">
      <div className="small">
        <div className="fw-semibold text-break">{name}</div>
        <div className="text-body-secondary">{details}</div>
      </div>
      {action}
    </ListGroup.Item>
  );
}
