import {
  SPAM_SENSITIVITIES,
  type MailProtectionResponse,
  type SpamSensitivity,
} from '@atrium/contracts/mail-protection';
import { useState, type FormEvent } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { SectionCard } from '../../../components/section-card.tsx';
import { QueryState } from '../../apps/components/query-state.tsx';
import { ActionError } from '../../users/components/action-error.tsx';
import { useMailProtection, useSetSpamSettings } from '../api/mail-protection.ts';
import { SenderLists } from './sender-lists.tsx';

const LEVELS: Record<SpamSensitivity, { label: string; help: string }> = {
  relaxed: { label: 'Relaxed', help: 'Only clear spam goes to Junk; fewer good messages are caught.' },
  standard: { label: 'Standard', help: 'Recommended for most organisations.' },
  strict: { label: 'Strict', help: 'More goes to Junk and more is refused; check Junk more often.' },
};

/** Mail Settings' spam protection: sensitivity, greylisting, the allow and block lists, sending limits. */
export function SpamProtection() {
  const query = useMailProtection();
  return (
    <SectionCard title="Spam protection" titleMargin="mb-1">
      <p className="small text-body-secondary">
        Applies to mail from outside to your verified domains. Changes reach the spam filter within a minute.
      </p>
      {!query.data ? (
        <QueryState error={query.error} what="spam protection" onRetry={() => void query.refetch()} />
      ) : (
        <>
          <SpamSettingsForm current={query.data} />
          <h3 className="h6 mt-4">Senders</h3>
          <p className="small text-body-secondary">
            Mail from an allowed sender never goes to Junk; mail from a blocked one is refused. People can
            keep their own lists on their profile.
          </p>
          <SenderLists scope="organization" id="organization-senders" />
          <h3 className="h6 mt-4">Sending limits</h3>
          <p className="small mb-0">
            Each person may send to {query.data.sendingLimits.perUserPerHour.toLocaleString('en-GB')}{' '}
            recipients an hour, and your organisation to{' '}
            {query.data.sendingLimits.perOrganizationPerHour.toLocaleString('en-GB')}, as your plan sets. Past
            that, mail is held and sent later, and administrators are told: a sudden burst often means an
            account is in someone else&apos;s hands.
          </p>
        </>
      )}
    </SectionCard>
  );
}

function SpamSettingsForm({ current }: { current: MailProtectionResponse }) {
  const [sensitivity, setSensitivity] = useState(current.spam.sensitivity);
  const [greylisting, setGreylisting] = useState(current.spam.greylisting);
  const save = useSetSpamSettings();
  const changed = sensitivity !== current.spam.sensitivity || greylisting !== current.spam.greylisting;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ sensitivity, greylisting });
  };
  return (
    <Form onSubmit={submit} aria-label="Spam settings">
      <ActionError title="The spam settings were not saved" error={save.error} onClose={() => save.reset()} />
      {save.isSuccess && !changed ? (
        <Alert variant="success" className="py-2 small" onClose={() => save.reset()} dismissible>
          Saved.
        </Alert>
      ) : null}
      <fieldset className="mb-3">
        <legend className="form-label fs-6">Spam sensitivity</legend>
        {SPAM_SENSITIVITIES.map((level) => (
          <Form.Check
            key={level}
            type="radio"
            id={`spam-sensitivity-${level}`}
            name="spam-sensitivity"
            checked={sensitivity === level}
            onChange={() => setSensitivity(level)}
            label={
              <>
                <span className="fw-semibold">{LEVELS[level].label}</span>
                <span className="d-block small text-body-secondary">{LEVELS[level].help}</span>
              </>
            }
            className="mb-2"
          />
        ))}
      </fieldset>
      <Form.Check
        type="switch"
        id="spam-greylisting"
        checked={greylisting}
        onChange={(event) => setGreylisting(event.target.checked)}
        label={
          <>
            <span className="fw-semibold">Greylisting</span>
            <span className="d-block small text-body-secondary">
              Suspicious first messages from an unknown server are asked to come back a few minutes later;
              real mail servers do, most spam does not.
            </span>
          </>
        }
        className="mb-3"
      />
      <Button type="submit" size="sm" disabled={!changed || save.isPending}>
        {save.isPending ? 'Saving…' : 'Save'}
      </Button>
    </Form>
  );
}
