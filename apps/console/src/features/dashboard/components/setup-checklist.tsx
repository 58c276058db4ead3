import type { Dashboard, MailSetupStepState } from '@atrium/contracts/dashboard';
import { MAIL_SETUP_STEP_TITLES, SETUP_STEP_TITLES, type SetupStep } from '@atrium/contracts/setup-steps';
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
 * The checklist as the page knows it: `mailSteps` is undefined until the server's overview has
 * arrived (the wizard's progress alone, read first, says nothing about mail).
 */
export type ChecklistSetup = Omit<Dashboard['setup'], 'mailSteps'> & {
  mailSteps?: Dashboard['setup']['mailSteps'];
};

/** Nothing to list: every wizard step done and no mail step open (or the mail steps not known yet). */
export function checklistIsOneLine(setup: ChecklistSetup | undefined): boolean {
  return (
    setup !== undefined && setup.openSteps.length === 0 && (setup.mailSteps ?? []).every((step) => step.done)
  );
}

/**
 * The setup steps still open, as the server judges them (skipped ones such as "verify later"
 * stay until done, e.g. until a domain is verified), then the mail steps, done or not (issue 42
 * item 2): the records published and the first message arrived. "Every setup step is done" only
 * when all of them are.
 */
export function SetupChecklist({ setup }: { setup: ChecklistSetup | undefined }) {
  const open = setup?.openSteps ?? [];
  const mailSteps = setup?.mailSteps ?? [];
  if (setup && checklistIsOneLine(setup)) {
    return (
      <section className="card atrium-card" aria-labelledby="setup-title" data-testid="setup-checklist">
        <div className="card-body py-3 px-4 d-flex flex-wrap align-items-center gap-2">
          <CheckCircle2 size={20} className="text-success flex-shrink-0" aria-hidden="true" />
          <h2 className="h6 mb-0" id="setup-title">
            Set up your organisation
          </h2>
          <span className="text-body-secondary">
            {/* Before the overview arrives the mail steps are not known: say only what is. */}
            {setup.mailSteps ? 'Every setup step is done.' : 'Every step of the setup wizard is done.'}
          </span>
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
        {mailSteps.map((step) => (
          <MailStepItem key={step.step} step={step} />
        ))}
      </ul>
      <div className="card-footer bg-transparent px-4 py-3 small">
        <DeviceSetupLink />
      </div>
    </section>
  );
}

/**
 * A mail step, done or not: what is missing ("3 of 11 records are not published yet for …") or
 * what was seen. Open records link to the domain's records and its "Check all records now".
 */
function MailStepItem({ step }: { step: MailSetupStepState }) {
  const title = MAIL_SETUP_STEP_TITLES[step.step];
  return (
    <li
      className="list-group-item border-0 d-flex align-items-start gap-3 py-3"
      data-testid={`setup-step-${step.step}`}
      data-done={step.done}
    >
      {step.done ? (
        <CheckCircle2 size={20} className="text-success flex-shrink-0 mt-1" aria-hidden="true" />
      ) : (
        <Circle size={20} className="text-body-tertiary flex-shrink-0 mt-1" aria-hidden="true" />
      )}
      <div className="flex-grow-1 min-w-0">
        <div className="fw-medium">
          {title}
          <span className="visually-hidden">{step.done ? ' (done)' : ' (not done yet)'}</span>
        </div>
        <div className="small text-body-secondary text-break">{step.detail}</div>
      </div>
      {!step.done && step.domainId ? (
        // The domain page's DNS mapping section (its id), which the page scrolls to.
        <Link
          to={`${paths.verifyDomain(step.domainId)}#dns-mapping`}
          className="btn btn-sm btn-outline-primary flex-shrink-0"
        >
          Open records<span className="visually-hidden">: {title}</span>
        </Link>
      ) : null}
    </li>
  );
}
