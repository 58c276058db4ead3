import type { ReactNode } from 'react';
import Alert from 'react-bootstrap/Alert';
import type { ApiError } from '../../../lib/api-client.ts';

/** A wizard step's heading, explanation and body, with room for an error alert. */
export function StepFrame({
  title,
  intro,
  error,
  errorHeading = 'That did not work',
  onDismiss,
  children,
}: {
  title: string;
  intro: ReactNode;
  error?: ApiError | Error | null;
  errorHeading?: string;
  onDismiss?: () => void;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby="setup-step-title">
      <h2 className="h5 mb-1" id="setup-step-title">
        {title}
      </h2>
      <p className="text-body-secondary mb-4">{intro}</p>
      {error ? (
        <Alert variant="danger" dismissible={!!onDismiss} onClose={onDismiss}>
          <Alert.Heading as="h3" className="h6">
            {errorHeading}
          </Alert.Heading>
          <p className="mb-0">{error.message}</p>
        </Alert>
      ) : null}
      {children}
    </section>
  );
}
