import { Compass, House } from 'lucide-react';
import { Link } from 'react-router';
import { paths } from '../../lib/paths.ts';

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
        <Link to={paths.dashboard()} className="btn btn-primary d-inline-flex align-items-center gap-2">
          <House size={18} aria-hidden="true" />
          Back to Admin home
        </Link>
      </div>
    </div>
  );
}
