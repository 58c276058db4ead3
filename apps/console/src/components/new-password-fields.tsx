import { Eye, EyeOff } from 'lucide-react';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import type { UseFormRegisterReturn } from 'react-hook-form';

interface Field {
  registration: UseFormRegisterReturn;
  error: string | undefined;
}

/**
 * A new password and the same again (sign-up, password reset, profile, set-password links),
 * with one show/hide toggle for both. The rules are the contracts' `newPasswordField` and
 * `passwordsMatch`; the common-password check answers from the server on `password`.
 */
export function NewPasswordFields({
  idPrefix,
  label = 'New password',
  password,
  confirmation,
}: {
  idPrefix: string;
  label?: string;
  password: Field;
  confirmation: Field;
}) {
  const [shown, setShown] = useState(false);
  const type = shown ? 'text' : 'password';
  return (
    <>
      <Form.Group className="mb-3" controlId={`${idPrefix}-password`}>
        <Form.Label>{label}</Form.Label>
        <InputGroup hasValidation>
          <Form.Control
            {...password.registration}
            type={type}
            autoComplete="new-password"
            aria-describedby={`${idPrefix}-password-help`}
            isInvalid={!!password.error}
          />
          <Button
            variant="outline-secondary"
            onClick={() => setShown((v) => !v)}
            aria-label={shown ? 'Hide password' : 'Show password'}
            aria-pressed={shown}
          >
            {shown ? <EyeOff size={16} aria-hidden="true" /> : <Eye size={16} aria-hidden="true" />}
          </Button>
          <Form.Control.Feedback type="invalid">{password.error}</Form.Control.Feedback>
        </InputGroup>
        <Form.Text id={`${idPrefix}-password-help`}>
          At least 8 characters; common passwords are refused.
        </Form.Text>
      </Form.Group>
      <Form.Group className="mb-3" controlId={`${idPrefix}-password-again`}>
        <Form.Label>{label} again</Form.Label>
        <Form.Control
          {...confirmation.registration}
          type={type}
          autoComplete="new-password"
          isInvalid={!!confirmation.error}
        />
        <Form.Control.Feedback type="invalid">{confirmation.error}</Form.Control.Feedback>
      </Form.Group>
    </>
  );
}
