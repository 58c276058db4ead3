import type { AppMenuItem } from '@atrium/contracts/apps';
import { ExternalLink } from 'lucide-react';
import { AppLink } from './app-link.tsx';

/** The apps page's grid: one tile per app the user may open. */
export function AppTiles({ apps }: { apps: AppMenuItem[] }) {
  return (
    <ul className="atrium-app-grid list-unstyled mb-0" aria-label="Your apps">
      {apps.map((app) => (
        <li key={app.id}>
          <AppLink app={app} className="card atrium-card atrium-app-tile h-100">
            <span className="card-body d-flex flex-column align-items-center text-center gap-2 p-4">
              <img src={app.image} alt={app.alt} width={56} height={56} />
              <span className="fw-semibold text-body">{app.title}</span>
              <span className="small text-body-secondary d-inline-flex align-items-center gap-1">
                Open <ExternalLink size={12} aria-hidden="true" />
                <span className="visually-hidden">(opens in a new tab)</span>
              </span>
            </span>
          </AppLink>
        </li>
      ))}
    </ul>
  );
}
