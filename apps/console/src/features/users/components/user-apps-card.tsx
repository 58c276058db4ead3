import type { UserDetail } from '@atrium/contracts/users';
import ListGroup from 'react-bootstrap/ListGroup';
import { SectionCard } from '../../../components/section-card.tsx';

/**
 * The apps this user can open: apps open to everyone or to one of their groups (for an invited
 * user, once they accept the invitation).
 */
export function UserAppsCard({ user }: { user: UserDetail }) {
  return (
    <SectionCard title="Apps they can open" className="mb-4">
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
    </SectionCard>
  );
}
