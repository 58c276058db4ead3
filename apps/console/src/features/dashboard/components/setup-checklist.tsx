import type { Dashboard } from '@atrium/contracts/dashboard';
import { SETUP_STEP_TITLES, type SetupStep } from '@atrium/contracts/setup-steps';
import { CheckCircle2, Circle } from 'lucide-react';
import { Link } from 'react-router';
import { paths } from '../../../lib/paths.ts';
import { DeviceSetupLink } from '../../devices/components/device-setup-link.tsx';

/** Where each open step is done outside the wizard. */
const STEP_LINKS: Record<SetupStep, { text: string; to: () => string }> = {
  profile: { text: 'Legal name, industry, size, country and time zone.', to: paths.organization },
  domain: { text: 'Add the domain your people’s e-mail addresses use.', to: paths.addDomain },
  // The verification of the first domain still to verify (/d-verify picks it).
  verify: { text: 'Publish a TXT record to prove you own your domain.', to: paths.verifyDomain },
  users: { text: 'Create accounts for the people in your organisation.', to: paths.addUser },
  apps: { text: 'Choose the apps your people open with single sign-on.', to: paths.apps },
};

/**
 * The setup steps still open, as the server judges them (skipped ones such as "verify later"
 * stay until done, e.g. until a domain is verified), or all done.
 */
export function SetupChecklist({ setup }: { setup: Dashboard['setup'] | undefined }) {
  const open = setup?.openSteps ?? [];
  if (setup && open.length === 0) {
    return (
      <section className="card atrium-card" aria-labelledby="setup-title" data-testid="setup-checklist">
        <div className="card-body py-3 px-4 d-flex flex-wrap align-items-center gap-2">
          <CheckCircle2 size={20} className="text-success flex-shrink-0" aria-hidden="true" />
          <h2 className="h6 mb-0" id="setup-title">
            Set up your organisation
          </h2>
          <span className="text-body-secondary">Every setup step is done.</span>
          {/* Your own devices next (issue 42 item 5). */}
          <DeviceSetupLink className="ms-sm-auto small" />
        </div>
      </section>
    );
  }
  return (
    <section className="card atrium-card h-100" aria-labelledby="setup-title" data-testid="setup-checklist">
      <div className="card-header bg-transparent border-0 pt-3 px-4">
        <h2 className="h6 mb-0" id="setup-title">
          Set up your organisation
        </h2>
      </div>
      <ul className="list-group list-group-flush px-2 pb-2">
        {open.map((step) => (
          <li key={step} className="list-group-item border-0 d-flex align-items-start gap-3 py-3">
            <Circle size={20} className="text-body-tertiary flex-shrink-0 mt-1" aria-hidden="true" />
            <div className="flex-grow-1 min-w-0">
              <div className="fw-medium">{SETUP_STEP_TITLES[step]}</div>
              <div className="small text-body-secondary">{STEP_LINKS[step].text}</div>
            </div>
            <Link to={STEP_LINKS[step].to()} className="btn btn-sm btn-outline-primary flex-shrink-0">
              Start<span className="visually-hidden">: {SETUP_STEP_TITLES[step]}</span>
            </Link>
          </li>
        ))}
      </ul>
      <div className="card-footer bg-transparent px-4 py-3 small">
        <DeviceSetupLink />
      </div>
    </section>
  );
}
