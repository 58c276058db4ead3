import type { AppTemplate, InstalledApp } from '@atrium/contracts/apps';
import { CheckCircle2 } from 'lucide-react';
import Badge from 'react-bootstrap/Badge';
import { Link } from 'react-router';
import { paths } from '../../../lib/paths.ts';
import { isBuiltInCalendar, SET_UP_A_DEVICE } from './built-in-calendar.tsx';

/**
 * One catalog template. Not installed: Install. Installed: an "Installed" badge, Manage (the app's
 * page, or the apps list when there are several) and, as the lesser action, Install another (an
 * organisation may run a second instance, e.g. a wiki per department). Calendar & Contacts, built
 * in, has nothing to install: "Built in", Set up a device, and "How it works" (its page, where a
 * web calendar can be installed under "Advanced").
 */
export function CatalogCard({ template, installed }: { template: AppTemplate; installed: InstalledApp[] }) {
  const only = installed.length === 1 ? installed[0] : undefined;
  const builtIn = isBuiltInCalendar(template) && installed.length === 0;
  return (
    <div className="card atrium-card h-100">
      <div className="card-body d-flex gap-3">
        <img src={template.image} alt="" width={48} height={48} className="flex-shrink-0" />
        <div className="d-flex flex-column flex-grow-1 min-w-0">
          <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
            <h2 className="h6 mb-0">{template.title}</h2>
            {installed.length > 0 ? (
              <Badge
                bg="success-subtle"
                text="success-emphasis"
                className="d-inline-flex align-items-center gap-1"
              >
                <CheckCircle2 size={12} aria-hidden="true" />
                {installed.length > 1 ? `Installed ×${installed.length}` : 'Installed'}
              </Badge>
            ) : builtIn ? (
              <Badge bg="info-subtle" text="info-emphasis">
                Built in
              </Badge>
            ) : null}
          </div>
          <p className="small text-body-secondary mb-3">{template.description}</p>
          <div className="mt-auto d-flex flex-wrap align-items-center gap-2">
            {builtIn ? (
              <>
                <Link to={paths.profileDevices()} className="btn btn-outline-primary btn-sm">
                  {SET_UP_A_DEVICE}
                </Link>
                <Link
                  to={paths.appInstall(template.key)}
                  className="btn btn-link btn-sm px-1"
                  aria-label={`How ${template.title} works`}
                >
                  How it works
                </Link>
              </>
            ) : installed.length === 0 ? (
              <Link
                to={paths.appInstall(template.key)}
                className="btn btn-outline-primary btn-sm"
                aria-label={`Install ${template.title}`}
              >
                Install
              </Link>
            ) : (
              <>
                <Link
                  to={only ? paths.appDetail(only.id) : paths.apps()}
                  className="btn btn-outline-primary btn-sm"
                  aria-label={`Manage ${only?.title ?? template.title}`}
                >
                  Manage
                </Link>
                <Link
                  to={paths.appInstall(template.key)}
                  className="btn btn-link btn-sm px-1"
                  aria-label={`Install another ${template.title}`}
                >
                  Install another
                </Link>
              </>
            )}
          </div>
        </div>
      </div>
    </div>
  );
}
