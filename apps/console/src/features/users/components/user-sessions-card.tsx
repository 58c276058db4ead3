import type { UserDetail } from '@atrium/contracts/users';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import ListGroup from 'react-bootstrap/ListGroup';
import { userActions, useUserAction } from '../api/user-actions.ts';
import { ActionError } from './action-error.tsx';
import { formatDateTime } from './format.ts';

/** Active console sessions; ending one signs that browser out on its next request. */
export function UserSessionsCard({ user }: { user: UserDetail }) {
  const end = useUserAction(user.id, (sessionId: string) => userActions.endSession(user.id, sessionId));
  return (
    <Card className="atrium-card mb-4">
      <Card.Body>
        <Card.Title as="h2" className="h5 mb-3">
          Active sessions
        </Card.Title>
        <ActionError title="The session could not be ended" error={end.error} onClose={() => end.reset()} />
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
                  disabled={end.isPending}
                  aria-label={`End session ${index + 1}`}
                  onClick={() => end.mutate(session.id)}
                >
                  End session
                </Button>
              </ListGroup.Item>
            ))}
          </ListGroup>
        )}
      </Card.Body>
    </Card>
  );
}
