import { CODE_LENGTH } from '@atrium/contracts/sign-in-values';
import type { ClipboardEvent } from 'react';
import Form from 'react-bootstrap/Form';
import type { UseFormRegisterReturn } from 'react-hook-form';

/**
 * The e-mailed 6-digit code (sign-in, sign-up, password reset): a numeric keyboard, the
 * browser's one-time-code autofill, and a pasted code taken whole even when the e-mail client
 * copied it with spaces or a dash. Validation is the contracts' `codeField`.
 */
export function CodeField({
  controlId,
  label,
  registration,
  error,
}: {
  controlId: string;
  label: string;
  registration: UseFormRegisterReturn;
  error: string | undefined;
}) {
  function onPaste(event: ClipboardEvent<HTMLInputElement>) {
    const digits = event.clipboardData.getData('text').replace(/\D/g, '');
    if (digits.length !== CODE_LENGTH) return;
    event.preventDefault();
    event.currentTarget.value = digits;
    void registration.onChange({ target: event.currentTarget, type: 'change' });
  }
  return (
    <Form.Group className="mb-3" controlId={controlId}>
      <Form.Label>{label}</Form.Label>
      <Form.Control
        {...registration}
        onPaste={onPaste}
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={CODE_LENGTH}
        className="atrium-code-input"
        isInvalid={!!error}
        autoFocus
      />
      <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>
    </Form.Group>
  );
}
