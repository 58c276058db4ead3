import type { UserDetail } from '@atrium/contracts/users';
import Button from 'react-bootstrap/Button';
import ListGroup from 'react-bootstrap/ListGroup';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { useConfirmDialog } from '../../../components/use-confirm-dialog.ts';
import { SectionCard } from '../../../components/section-card.tsx';
import { userActions, useUserAction } from '../api/user-actions.ts';
import { formatDateTime } from './format.ts';

type Session = UserDetail['sessions'][number];

/** Active console sessions; ending one (after asking) signs that browser out on its next request. */
export function UserSessionsCard({ user }: { user: UserDetail }) {
  const end = useUserAction(user.id, (sessionId: string) => userActions.endSession(user.id, sessionId));
  const sessionEnd = useConfirmDialog(end, (session: Session) => session.id);
  return (
    <SectionCard title="Active sessions" className="mb-4">
      {user.sessions.length === 0 ? (
        <p className="text-body-secondary mb-0">Not signed in anywhere.</p>
      ) : (
        <ListGroup>
          {user.sessions.map((session, index) => (
            <ListGroup.Item
              key={session.id}
              className="d-flex flex-wrap align-items-center justify-content-between gap-2"
            >
              <div className="small">
                <div className="fw-semibold text-break" title={session.userAgent ?? undefined}>
                  {session.browser}
                </div>
                <div className="text-body-secondary">
                  {session.ip ?? 'unknown address'} · signed in {formatDateTime(session.createdAt)} · last
                  seen {formatDateTime(session.lastSeenAt)}
                </div>
              </div>
              <Button
                variant="outline-danger"
                size="sm"
                aria-label={`End session ${index + 1}`}
                onClick={() => sessionEnd.ask(session)}
              >
                End session
              </Button>
            </ListGroup.Item>
          ))}
        </ListGroup>
      )}
      <ConfirmDialog
        {...sessionEnd.dialog}
        title={`End this session of ${user.name}?`}
        confirmLabel="End session"
        pendingLabel="Ending…"
        errorTitle="The session was not ended"
      >
        <p className="mb-2">
          That device will be signed out. To use the console or an app again there, it has to sign in with
          password and code.
        </p>
        <p className="small text-body-secondary mb-0">
          {sessionEnd.target?.browser} · {sessionEnd.target?.ip ?? 'unknown address'}
          {sessionEnd.target ? ` · last seen ${formatDateTime(sessionEnd.target.lastSeenAt)}` : ''}
        </p>
      </ConfirmDialog>
    </SectionCard>
  );
}
