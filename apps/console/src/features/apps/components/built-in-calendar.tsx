import type { AppTemplate } from '@atrium/contracts/apps';
import { Smartphone } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { paths } from '../../../lib/paths.ts';
import { SetupInstructions } from './setup-instructions.tsx';

/**
 * The catalog's Calendar & Contacts entry (server: catalog-defaults.ts, dav-auth.service.ts).
 * Calendars and contacts are built in: people get them on their devices from Profile → Set up a
 * device, with nothing to install. Installing the entry only registers a web calendar that signs
 * people in with Atrium, so its page leads with Set up a device and keeps the web calendar's
 * form and OIDC values under "Advanced"; until one is installed, no tile points at a page where
 * nothing runs (the apps page links to Set up a device for everyone).
 */
export const CALENDAR_TEMPLATE_KEY = 'calendar-contacts';

export function isBuiltInCalendar(template: Pick<AppTemplate, 'key'>): boolean {
  return template.key === CALENDAR_TEMPLATE_KEY;
}

export const SET_UP_A_DEVICE = 'Set up a device';
export const WEB_CALENDAR_SUMMARY = 'Advanced: a web calendar that signs people in with Atrium';

/** How people get calendars and contacts, a link to Set up a device, then "Advanced" (the install form). */
export function BuiltInCalendar({ template, advanced }: { template: AppTemplate; advanced: ReactNode }) {
  return (
    <>
      <section className="card atrium-card mb-4" aria-labelledby="built-in-calendar-title">
        <div className="card-body">
          <h2 className="h6 mb-3" id="built-in-calendar-title">
            How people get calendars and contacts
          </h2>
          <SetupInstructions text={template.setupInstructions} />
          <Link
            to={paths.profileDevices()}
            className="btn btn-primary d-inline-flex align-items-center gap-2"
          >
            <Smartphone size={16} aria-hidden="true" />
            {SET_UP_A_DEVICE}
          </Link>
        </div>
      </section>
      <details className="mb-3">
        <summary className="fw-semibold mb-2">{WEB_CALENDAR_SUMMARY}</summary>
        <p className="small">
          Only if your organisation runs a web calendar of its own: install this entry with the web
          calendar&apos;s address, and its tile on the apps page opens it. Its sign-in settings are below.
        </p>
        {advanced}
      </details>
    </>
  );
}
