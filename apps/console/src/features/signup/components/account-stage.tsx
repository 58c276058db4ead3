import { signupAccountBodySchema, type SignupState } from '@atrium/contracts/signup';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import { NewPasswordFields } from '../../../components/new-password-fields.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useCreateAccount, type AccountBody } from '../api/create-account.ts';
import { signupKeys } from '../api/keys.ts';
import { FormAlert } from './form-alert.tsx';

const FIELDS = ['firstName', 'lastName', 'password', 'passwordConfirmation'] as const;

/** Stage 4: the admin's name and password; finishing creates the organisation and signs in. */
export function AccountStage({ state }: { state: SignupState }) {
  const createAccount = useCreateAccount();
  const queryClient = useQueryClient();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, formState } = useForm<AccountBody>({
    resolver: zodResolver(signupAccountBodySchema),
    defaultValues: { firstName: '', lastName: '', password: '', passwordConfirmation: '' },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      const { redirectTo } = await createAccount.mutateAsync(values);
      // A full navigation: single sign-on sets the session cookie and opens the setup wizard.
      window.location.assign(redirectTo);
    } catch (error) {
      // Lost a race for the site name or the address: the server moved the flow back a stage.
      if (error instanceof ApiError && (error.fields?.siteName || error.fields?.email)) {
        await queryClient.invalidateQueries({ queryKey: signupKeys.state() });
      }
      setFailure(applyServerErrors(error, setError, FIELDS));
    }
  });

  return (
    <Form noValidate onSubmit={onSubmit}>
      <FormAlert
        heading="Your organisation was not created"
        error={failure}
        onClose={() => setFailure(null)}
      />
      <p className="text-body-secondary small">
        Last step: your administrator account for <strong>{state.email}</strong>.
      </p>
      <div className="row g-3 mb-3">
        <Form.Group className="col-sm-6" controlId="signup-first-name">
          <Form.Label>First name</Form.Label>
          <Form.Control
            {...register('firstName')}
            autoComplete="given-name"
            isInvalid={!!errors.firstName}
            autoFocus
          />
          <Form.Control.Feedback type="invalid">{errors.firstName?.message}</Form.Control.Feedback>
        </Form.Group>
        <Form.Group className="col-sm-6" controlId="signup-last-name">
          <Form.Label>Last name</Form.Label>
          <Form.Control {...register('lastName')} autoComplete="family-name" isInvalid={!!errors.lastName} />
          <Form.Control.Feedback type="invalid">{errors.lastName?.message}</Form.Control.Feedback>
        </Form.Group>
      </div>
      <NewPasswordFields
        idPrefix="signup"
        label="Password"
        password={{ registration: register('password'), error: errors.password?.message }}
        confirmation={{
          registration: register('passwordConfirmation'),
          error: errors.passwordConfirmation?.message,
        }}
      />
      <Button type="submit" className="w-100" disabled={isSubmitting}>
        {isSubmitting ? 'Creating your organisation…' : 'Create organisation'}
      </Button>
    </Form>
  );
}
