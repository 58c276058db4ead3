import type { UserDetail } from '@atrium/contracts/users';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import ListGroup from 'react-bootstrap/ListGroup';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { userActions, useUserAction } from '../api/user-actions.ts';
import { formatDateTime } from './format.ts';

type Session = UserDetail['sessions'][number];

/** Active console sessions; ending one (after asking) signs that browser out on its next request. */
export function UserSessionsCard({ user }: { user: UserDetail }) {
  const [ending, setEnding] = useState<Session | null>(null);
  const end = useUserAction(user.id, (sessionId: string) => userActions.endSession(user.id, sessionId), {
    onSuccess: () => setEnding(null),
  });
  return (
    <Card className="atrium-card mb-4">
      <Card.Body>
        <Card.Title as="h2" className="h5 mb-3">
          Active sessions
        </Card.Title>
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
                  <div className="fw-semibold text-break">{session.userAgent ?? 'Unknown browser'}</div>
                  <div className="text-body-secondary">
                    {session.ip ?? 'unknown address'} · signed in {formatDateTime(session.createdAt)} · last
                    seen {formatDateTime(session.lastSeenAt)}
                  </div>
                </div>
                <Button
                  variant="outline-danger"
                  size="sm"
                  aria-label={`End session ${index + 1}`}
                  onClick={() => setEnding(session)}
                >
                  End session
                </Button>
              </ListGroup.Item>
            ))}
          </ListGroup>
        )}
      </Card.Body>
      <ConfirmDialog
        show={ending !== null}
        title={`End this session of ${user.name}?`}
        confirmLabel="End session"
        pendingLabel="Ending…"
        pending={end.isPending}
        error={end.error}
        errorTitle="The session was not ended"
        onConfirm={() => ending && end.mutate(ending.id)}
        onCancel={() => {
          setEnding(null);
          end.reset();
        }}
      >
        <p className="mb-2">
          That device will be signed out. To use the console or an app again there, it has to sign in with
          password and code.
        </p>
        <p className="small text-body-secondary mb-0">
          {ending?.userAgent ?? 'Unknown browser'} · {ending?.ip ?? 'unknown address'}
          {ending ? ` · last seen ${formatDateTime(ending.lastSeenAt)}` : ''}
        </p>
      </ConfirmDialog>
    </Card>
  );
}
