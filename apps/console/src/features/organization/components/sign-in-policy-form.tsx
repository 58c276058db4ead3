import type { SignInPolicy, StrongFactorRequired } from '@atrium/contracts/sign-in-policy';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useUpdateSignInPolicy } from '../api/sign-in-policy.ts';

const WHO: { value: StrongFactorRequired; label: string }[] = [
  { value: 'nobody', label: 'Nobody (each user chooses)' },
  { value: 'admins', label: 'Administrators' },
  { value: 'everyone', label: 'Everyone' },
];

/**
 * Who must sign in with a strong factor (a passkey or an authenticator app), whether a code by e-mail
 * still counts as a second factor, and whether browsers may be trusted for 30 days. Nobody is
 * locked out: users who must set up an app do so right after their next password and code.
 */
export function SignInPolicyForm({ policy }: { policy: SignInPolicy }) {
  const update = useUpdateSignInPolicy();
  const [draft, setDraft] = useState<SignInPolicy>(policy);
  const [saved, setSaved] = useState(false);
  const change = (next: Partial<SignInPolicy>) => {
    setSaved(false);
    setDraft({ ...draft, ...next });
  };

  return (
    <Form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        update.mutate(draft, { onSuccess: () => setSaved(true) });
      }}
    >
      {update.error ? (
        <Alert variant="danger" dismissible onClose={() => update.reset()}>
          <Alert.Heading as="h3" className="h6">
            The sign-in policy was not saved
          </Alert.Heading>
          <p className="mb-0">{update.error.message}</p>
        </Alert>
      ) : null}
      <fieldset className="mb-3">
        <legend className="form-label fs-6 mb-2">Require a passkey or an authenticator app for</legend>
        {WHO.map((option) => (
          <Form.Check
            key={option.value}
            type="radio"
            id={`policy-strong-${option.value}`}
            name="strongFactorRequired"
            label={option.label}
            checked={draft.strongFactorRequired === option.value}
            onChange={() => change({ strongFactorRequired: option.value })}
          />
        ))}
        <Form.Text>
          Users who must have one and do not are asked to set it up right after their next password and code.
        </Form.Text>
      </fieldset>
      <Form.Check
        type="switch"
        id="policy-email-code"
        className="mb-1"
        label="Allow a code by e-mail as the second step"
        checked={draft.emailCodeAllowed}
        onChange={(event) => change({ emailCodeAllowed: event.target.checked })}
        aria-describedby="policy-email-code-help"
      />
      <Form.Text id="policy-email-code-help" className="d-block mb-3">
        When off, users without a passkey or an authenticator app sign in with an e-mailed code once, then
        must set up an app.
      </Form.Text>
      <Form.Check
        type="switch"
        id="policy-trusted-browsers"
        className="mb-1"
        label="Let users trust a browser for 30 days"
        checked={draft.trustedBrowsersAllowed}
        onChange={(event) => change({ trustedBrowsersAllowed: event.target.checked })}
        aria-describedby="policy-trusted-browsers-help"
      />
      <Form.Text id="policy-trusted-browsers-help" className="d-block mb-4">
        A trusted browser signs in with the password alone. When off, trusted browsers are no longer honoured.
      </Form.Text>
      <div className="d-flex flex-wrap gap-2 align-items-center">
        <Button type="submit" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save sign-in policy'}
        </Button>
        <span role="status" className="text-success small">
          {saved ? 'Saved.' : ''}
        </span>
      </div>
    </Form>
  );
}
