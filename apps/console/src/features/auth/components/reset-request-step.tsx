import { passwordResetStartBody } from '@atrium/contracts/auth';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useStartPasswordReset } from '../api/password-reset.ts';
import { ErrorAlert } from './error-alert.tsx';

/** Forgot password, step 1: the e-mail address. The answer is the same whether or not it has an account. */
export function ResetRequestStep({ onSent }: { onSent: (email: string, resendAvailableAt: string) => void }) {
  const start = useStartPasswordReset();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, formState } = useForm<{ email: string }>({
    resolver: zodResolver(passwordResetStartBody),
    defaultValues: { email: '' },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      const sent = await start.mutateAsync(values);
      onSent(values.email.trim().toLowerCase(), sent.resendAvailableAt);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['email']));
    }
  });

  return (
    <Form noValidate onSubmit={onSubmit} className="text-start">
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <p className="text-body-secondary small">Enter your e-mail address and we will send you a code.</p>
      <Form.Group className="mb-4" controlId="reset-email">
        <Form.Label>E-mail address</Form.Label>
        <Form.Control
          {...register('email')}
          type="email"
          autoComplete="username"
          isInvalid={!!errors.email}
          autoFocus
        />
        <Form.Control.Feedback type="invalid">{errors.email?.message}</Form.Control.Feedback>
      </Form.Group>
      <Button type="submit" className="w-100" disabled={isSubmitting}>
        {isSubmitting ? 'Sending…' : 'Send a code'}
      </Button>
    </Form>
  );
}
