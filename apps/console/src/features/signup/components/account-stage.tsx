import { signupAccountBodySchema, type SignupState } from '@atrium/contracts/signup';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { Eye, EyeOff } from 'lucide-react';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import { useForm } from 'react-hook-form';
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
  const [showPassword, setShowPassword] = useState(false);
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

  const type = showPassword ? 'text' : 'password';
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
      <Form.Group className="mb-3" controlId="signup-password">
        <Form.Label>Password</Form.Label>
        <InputGroup hasValidation>
          <Form.Control
            {...register('password')}
            type={type}
            autoComplete="new-password"
            aria-describedby="signup-password-help"
            isInvalid={!!errors.password}
          />
          <Button
            variant="outline-secondary"
            onClick={() => setShowPassword((v) => !v)}
            aria-label={showPassword ? 'Hide password' : 'Show password'}
            aria-pressed={showPassword}
          >
            {showPassword ? <EyeOff size={16} aria-hidden="true" /> : <Eye size={16} aria-hidden="true" />}
          </Button>
          <Form.Control.Feedback type="invalid">{errors.password?.message}</Form.Control.Feedback>
        </InputGroup>
        <Form.Text id="signup-password-help">At least 8 characters; common passwords are refused.</Form.Text>
      </Form.Group>
      <Form.Group className="mb-4" controlId="signup-password-confirmation">
        <Form.Label>Confirm password</Form.Label>
        <Form.Control
          {...register('passwordConfirmation')}
          type={type}
          autoComplete="new-password"
          isInvalid={!!errors.passwordConfirmation}
        />
        <Form.Control.Feedback type="invalid">{errors.passwordConfirmation?.message}</Form.Control.Feedback>
      </Form.Group>
      <Button type="submit" className="w-100" disabled={isSubmitting}>
        {isSubmitting ? 'Creating your organisation…' : 'Create organisation'}
      </Button>
    </Form>
  );
}
