import type { TrustedBrowser } from '@atrium/contracts/sign-in-policy';
import { MonitorCheck } from 'lucide-react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { useConfirmDialog } from '../../../components/use-confirm-dialog.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { useRemoveTrustedBrowsers, useTrustedBrowsers } from '../api/trusted-browsers.ts';
import { ErrorAlert } from './error-alert.tsx';

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * Browsers ticked "Trust this browser for 30 days" at sign-in: there, the password alone signs in.
 * Removing one (or all) makes it ask for the second factor again; a password change removes all.
 */
export function TrustedBrowsersSection() {
  const browsers = useTrustedBrowsers();
  const remove = useRemoveTrustedBrowsers();
  // A browser to remove, or 'all'.
  const removal = useConfirmDialog(remove, (browser: TrustedBrowser | 'all') =>
    browser === 'all' ? undefined : browser.id,
  );
  if (browsers.isPending)
    return <Spinner animation="border" size="sm" role="status" aria-label="Loading trusted browsers" />;
  if (browsers.isError) {
    return <ErrorAlert error={browsers.error instanceof ApiError ? browsers.error : null} />;
  }
  const list = browsers.data;
  return (
    <>
      {list.length === 0 ? (
        <p className="text-body-secondary small mb-0">
          No trusted browsers. When you sign in, tick “Trust this browser for 30 days” to be asked only for
          your password there.
        </p>
      ) : (
        <>
          <ul className="list-group list-group-flush" aria-label="Trusted browsers">
            {list.map((browser) => (
              <li key={browser.id} className="list-group-item d-flex align-items-center gap-3 px-0">
                <MonitorCheck size={20} aria-hidden="true" className="text-body-secondary flex-shrink-0" />
                <div className="min-w-0 flex-grow-1">
                  <div className="fw-semibold">
                    {browser.browser}{' '}
                    {browser.current ? (
                      <Badge bg="success" className="ms-1">
                        This browser
                      </Badge>
                    ) : null}
                  </div>
                  <div className="small text-body-secondary">
                    Trusted {when(browser.trustedAt)} until {when(browser.trustedUntil)} · last used{' '}
                    {browser.lastUsedAt ? when(browser.lastUsedAt) : 'not yet'}
                  </div>
                </div>
                <Button
                  variant="outline-danger"
                  size="sm"
                  onClick={() => removal.ask(browser)}
                  aria-label={`Remove trusted browser: ${browser.browser}, trusted ${when(browser.trustedAt)}`}
                >
                  Remove
                </Button>
              </li>
            ))}
          </ul>
          {list.length > 1 ? (
            <Button variant="outline-danger" size="sm" className="mt-2" onClick={() => removal.ask('all')}>
              Remove all
            </Button>
          ) : null}
        </>
      )}
      <ConfirmDialog
        {...removal.dialog}
        title={
          removal.target === 'all'
            ? 'Stop trusting all browsers?'
            : `Stop trusting ${removal.target?.browser ?? 'this browser'}?`
        }
        confirmLabel={removal.target === 'all' ? 'Remove all' : 'Remove'}
        pendingLabel="Removing…"
        errorTitle="Nothing was removed"
      >
        <p className="mb-0">
          Signing in there will ask for your authenticator app or e-mailed code again after the password.
        </p>
      </ConfirmDialog>
    </>
  );
}
