import Form from 'react-bootstrap/Form';
import type { UseFormRegisterReturn } from 'react-hook-form';

/** The "Current password" field the profile asks for before a change to the account. */
export function CurrentPasswordField({
  controlId,
  registration,
  error,
  autoFocus,
}: {
  controlId: string;
  registration: UseFormRegisterReturn;
  error: string | undefined;
  autoFocus?: boolean;
}) {
  return (
    <Form.Group className="mb-3" controlId={controlId}>
      <Form.Label>Current password</Form.Label>
      <Form.Control
        {...registration}
        type="password"
        autoComplete="current-password"
        isInvalid={!!error}
        autoFocus={autoFocus}
      />
      <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>
    </Form.Group>
  );
}
