import type { UserDetail } from '@atrium/contracts/users';
import Card from 'react-bootstrap/Card';
import ListGroup from 'react-bootstrap/ListGroup';

/**
 * The apps this user can open: apps open to everyone or to one of their groups (for an invited
 * user, once they accept the invitation).
 */
export function UserAppsCard({ user }: { user: UserDetail }) {
  return (
    <Card className="atrium-card mb-4">
      <Card.Body>
        <Card.Title as="h2" className="h5 mb-3">
          Apps they can open
        </Card.Title>
        {user.apps.length === 0 ? (
          <p className="text-body-secondary mb-0">
            {user.status === 'suspended' ? 'None while suspended.' : 'No app is open to this user’s groups.'}
          </p>
        ) : (
          <>
            {user.status === 'invited' ? (
              <p className="small text-body-secondary mb-1">Once they accept the invitation:</p>
            ) : null}
            <ListGroup as="ul" variant="flush" aria-label="Apps they can open">
              {user.apps.map((app) => (
                <ListGroup.Item as="li" key={app.id} className="px-0">
                  {app.name}
                </ListGroup.Item>
              ))}
            </ListGroup>
          </>
        )}
      </Card.Body>
    </Card>
  );
}
