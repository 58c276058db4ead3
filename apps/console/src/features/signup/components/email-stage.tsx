import { signupEmailBodySchema, type SignupState } from '@atrium/contracts/signup';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useChangeStage, useSubmitEmail } from '../api/signup-state.ts';
import { FormAlert } from './form-alert.tsx';

/** Stage 2: the admin's e-mail address; a code is sent to it. */
export function EmailStage({ state }: { state: SignupState }) {
  const submitEmail = useSubmitEmail();
  const changeStage = useChangeStage();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, formState } = useForm<{ email: string }>({
    resolver: zodResolver(signupEmailBodySchema),
    defaultValues: { email: state.email ?? '' },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      await submitEmail.mutateAsync(values);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['email']));
    }
  });

  return (
    <Form noValidate onSubmit={onSubmit}>
      <FormAlert heading="We could not send the code" error={failure} onClose={() => setFailure(null)} />
      <p className="text-body-secondary small">
        You will be the administrator of <strong>{state.organizationName}</strong> ({state.siteUrl}).
      </p>
      <Form.Group className="mb-4" controlId="signup-email">
        <Form.Label>Your work e-mail</Form.Label>
        <Form.Control
          {...register('email')}
          type="email"
          autoComplete="email"
          isInvalid={!!errors.email}
          autoFocus
        />
        <Form.Control.Feedback type="invalid">{errors.email?.message}</Form.Control.Feedback>
        <Form.Text>We will send a 6-digit code to confirm it.</Form.Text>
      </Form.Group>
      <div className="d-flex gap-2">
        <Button
          variant="outline-secondary"
          onClick={() => changeStage.mutate({ stage: 'site' })}
          disabled={changeStage.isPending}
        >
          Back
        </Button>
        <Button type="submit" className="flex-grow-1" disabled={isSubmitting}>
          {isSubmitting ? 'Sending…' : 'Send code'}
        </Button>
      </div>
    </Form>
  );
}
