import './authenticator.css';
import type { AuthenticatorEnrolment, ConfirmAuthenticatorBody } from '@atrium/contracts/authenticator';
import { confirmAuthenticatorBody } from '@atrium/contracts/authenticator';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import { CodeField } from '../../../components/code-field.tsx';
import { CopyButton } from '../../../components/copy-button.tsx';
import { QrCode } from '../../../components/qr-code.tsx';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useConfirmEnrolment } from '../api/authenticator.ts';
import { ErrorAlert } from './error-alert.tsx';

/** The secret in groups of four, as apps that take it typed show it. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

/**
 * Setting up the app: scan the QR code (or type the secret), then type the first code it shows.
 * The server made the QR code; it is an <img> of an SVG data: URL, so nothing runs in the page.
 */
export function AuthenticatorSetup({
  enrolment,
  onConfirmed,
  onCancel,
  confirmWith,
  stacked = false,
}: {
  enrolment: AuthenticatorEnrolment;
  onConfirmed: (recoveryCodes: string[] | null) => void;
  /** Without it (a sign-in that must set up an app) there is no Cancel. */
  onCancel?: () => void;
  /** Another confirming call than /profile's: the sign-in's forced enrolment. */
  confirmWith?: (body: ConfirmAuthenticatorBody) => Promise<{ recoveryCodes: string[] | null }>;
  /** QR code above the steps at every width (the narrow sign-in card). */
  stacked?: boolean;
}) {
  const confirm = useConfirmEnrolment();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, formState } = useForm<ConfirmAuthenticatorBody>({
    resolver: zodResolver(confirmAuthenticatorBody),
    defaultValues: { code: '' },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      const { recoveryCodes } = await (confirmWith ?? confirm.mutateAsync)(values);
      onConfirmed(recoveryCodes);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['code']));
    }
  });

  return (
    <div className="row g-4 align-items-start">
      <div className={stacked ? 'col-12 text-center' : 'col-12 col-md-auto text-center'}>
        <QrCode src={enrolment.qrCode} alt="QR code to scan with your authenticator app" />
      </div>
      <div className={stacked ? 'col-12' : 'col-12 col-md'}>
        <ol className="small ps-3 mb-3">
          <li>
            Open an authenticator app on your phone, such as Google Authenticator, Microsoft Authenticator,
            1Password or Aegis.
          </li>
          <li>Scan the QR code, or enter this key by hand:</li>
        </ol>
        <div className="d-flex align-items-center gap-2 mb-3">
          <code className="atrium-totp-secret text-body text-break" data-testid="totp-secret">
            {grouped(enrolment.secret)}
          </code>
          <CopyButton value={enrolment.secret} label="Copy the key" />
        </div>
        <Form noValidate onSubmit={onSubmit} className="atrium-narrow-form">
          <ErrorAlert error={failure} onClose={() => setFailure(null)} />
          <CodeField
            controlId="authenticator-first-code"
            label="Code shown by the app"
            registration={register('code')}
            error={errors.code?.message}
          />
          <div className="d-flex flex-wrap gap-2">
            <Button type="submit" disabled={isSubmitting}>
              {isSubmitting ? 'Checking…' : 'Turn on'}
            </Button>
            {onCancel ? (
              <Button variant="outline-secondary" onClick={onCancel} disabled={isSubmitting}>
                Cancel
              </Button>
            ) : null}
          </div>
        </Form>
      </div>
    </div>
  );
}
