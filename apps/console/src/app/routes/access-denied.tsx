import { ShieldX } from 'lucide-react';
import { Link, useSearchParams } from 'react-router';
import { PublicCard } from '../../components/public-card.tsx';
import { paths } from '../../lib/paths.ts';

/**
 * Where the identity provider sends a signed-in user who asked to sign in to an app they may not
 * open (docs/app-catalog.md). No code was issued; the app receives nothing.
 */
export default function AccessDeniedPage() {
  const [params] = useSearchParams();
  const app = params.get('app')?.trim().slice(0, 80) || 'this app';
  return (
    <PublicCard title="No access" icon={ShieldX}>
      <p className="mb-4" data-testid="access-denied-message">
        You don&apos;t have access to {app}. Ask your administrator.
      </p>
      <Link to={paths.application()} className="btn btn-primary">
        Go to your apps
      </Link>
    </PublicCard>
  );
}
