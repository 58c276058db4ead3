import Alert from 'react-bootstrap/Alert';
import type { ApiError } from '../../../lib/api-client.ts';

/** Headings for the failures a sign-in form can meet; the body is the server's message. */
export function headingFor(error: ApiError): string {
  if (error.code === 'sign_in_locked') return 'Sign-in is locked';
  if (error.code === 'sign_in_throttled' || error.status === 429) return 'Too many attempts';
  if (error.code === 'invalid_credentials') return 'Sign-in failed';
  if (error.code === 'account_suspended') return 'Account suspended';
  if (error.code === 'interaction_expired') return 'This page has expired';
  return 'That did not work';
}

/** A failure that belongs to no field: a heading and the server's message. */
export function ErrorAlert({ error, onClose }: { error: ApiError | null; onClose?: () => void }) {
  if (!error) return null;
  return (
    <Alert variant="danger" dismissible={!!onClose} onClose={onClose} className="text-start">
      <Alert.Heading as="h2" className="h6">
        {headingFor(error)}
      </Alert.Heading>
      <p className="mb-0">{error.message}</p>
    </Alert>
  );
}
