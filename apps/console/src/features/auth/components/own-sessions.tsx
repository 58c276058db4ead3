import type { OwnSession } from '@atrium/contracts/auth';
import { Monitor } from 'lucide-react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { useConfirmDialog } from '../../../components/use-confirm-dialog.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { useEndSession, useOwnSessions } from '../api/profile.ts';
import { ErrorAlert } from './error-alert.tsx';

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** Your active sessions; any but this one can be ended here (this one ends with Sign out). */
export function OwnSessions() {
  const sessions = useOwnSessions();
  const end = useEndSession();
  const sessionEnd = useConfirmDialog(end, (session: OwnSession) => session.id);
  if (sessions.isPending)
    return <Spinner animation="border" size="sm" role="status" aria-label="Loading sessions" />;
  if (sessions.isError) {
    return <ErrorAlert error={sessions.error instanceof ApiError ? sessions.error : null} />;
  }
  return (
    <>
      <ul className="list-group list-group-flush" aria-label="Active sessions">
        {sessions.data.map((session) => (
          <li key={session.id} className="list-group-item d-flex align-items-center gap-3 px-0">
            <Monitor size={20} aria-hidden="true" className="text-body-secondary flex-shrink-0" />
            <div className="min-w-0 flex-grow-1">
              <div className="fw-semibold">
                {session.browser}{' '}
                {session.current ? (
                  <Badge bg="success" className="ms-1">
                    This session
                  </Badge>
                ) : null}
              </div>
              <div className="small text-body-secondary">
                Signed in {when(session.createdAt)}
                {session.ip ? ` · ${session.ip}` : ''} · last active {when(session.lastSeenAt)}
              </div>
            </div>
            {session.current ? null : (
              <Button
                variant="outline-danger"
                size="sm"
                onClick={() => sessionEnd.ask(session)}
                aria-label={`End session: ${session.browser}, signed in ${when(session.createdAt)}`}
              >
                End
              </Button>
            )}
          </li>
        ))}
      </ul>
      <ConfirmDialog
        {...sessionEnd.dialog}
        title={`End the session on ${sessionEnd.target?.browser}?`}
        confirmLabel="End session"
        pendingLabel="Ending…"
        errorTitle="The session was not ended"
      >
        <p className="mb-2">
          That device will be signed out. To use the console or an app again there, it has to sign in with
          password and code.
        </p>
        {sessionEnd.target ? (
          <p className="small text-body-secondary mb-0">
            Signed in {when(sessionEnd.target.createdAt)}
            {sessionEnd.target.ip ? ` · ${sessionEnd.target.ip}` : ''} · last active{' '}
            {when(sessionEnd.target.lastSeenAt)}
          </p>
        ) : null}
      </ConfirmDialog>
    </>
  );
}
