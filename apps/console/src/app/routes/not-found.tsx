import { useQuery } from '@tanstack/react-query';
import { Compass, House } from 'lucide-react';
import { Link } from 'react-router';
import { currentUserQuery } from '../../features/auth/api/current-user.ts';
import { paths, serverPaths } from '../../lib/paths.ts';

/** Where the way back leads: the admin home, the apps page, or sign-in for a signed-out visitor. */
function WayBack() {
  // The route's loader already asked for the session; this only reads what it found.
  const user = useQuery({ ...currentUserQuery, enabled: false }).data;
  const className = 'btn btn-primary d-inline-flex align-items-center gap-2';
  if (!user) {
    return (
      <a href={serverPaths.ssoStart(paths.dashboard())} className={className}>
        Sign in
      </a>
    );
  }
  return (
    <Link to={user.isAdmin ? paths.dashboard() : paths.application()} className={className}>
      <House size={18} aria-hidden="true" />
      {user.isAdmin ? 'Back to Admin home' : 'Go to your apps'}
    </Link>
  );
}

export default function NotFoundPage() {
  return (
    <div className="card atrium-card">
      <div className="card-body atrium-empty text-center py-5">
        <div className="atrium-empty__icon mx-auto" aria-hidden="true">
          <Compass size={28} strokeWidth={1.75} />
        </div>
        <p className="display-5 fw-bold text-primary mt-3 mb-0">404</p>
        <h1 className="h4 mb-2">Page not found</h1>
        <p className="text-body-secondary mx-auto atrium-empty__text">
          The page you are looking for does not exist, or it is not available yet.
        </p>
        <WayBack />
      </div>
    </div>
  );
}
