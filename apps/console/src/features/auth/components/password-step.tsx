import type { SignInPasswordBody } from '@atrium/contracts/auth';
import { Eye, EyeOff } from 'lucide-react';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import { useForm } from 'react-hook-form';
import { Link } from 'react-router';
import type { ApiError } from '../../../lib/api-client.ts';
import { lazyZodResolver } from '../../../lib/lazy-zod-resolver.ts';
import { paths } from '../../../lib/paths.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useSubmitPassword } from '../api/interaction.ts';
import { ErrorAlert } from './error-alert.tsx';
import { PasskeySignIn } from './passkey-sign-in.tsx';

const signInPasswordBodyResolver = lazyZodResolver(
  async () => (await import('@atrium/contracts/auth')).signInPasswordBody,
);
/** Sign-in step 1: e-mail and password. */
export function PasswordStep({ uid, onSent }: { uid: string; onSent?: () => void }) {
  const submit = useSubmitPassword(uid);
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [showPassword, setShowPassword] = useState(false);
  const { register, handleSubmit, setError, formState } = useForm<SignInPasswordBody>({
    resolver: signInPasswordBodyResolver,
    defaultValues: { email: '', password: '' },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      await submit.mutateAsync(values);
      onSent?.();
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['email', 'password']));
    }
  });

  return (
    <Form noValidate onSubmit={onSubmit} className="text-start">
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <Form.Group className="mb-3" controlId="login-email">
        <Form.Label>E-mail address</Form.Label>
        <Form.Control
          {...register('email')}
          type="email"
          autoComplete="username webauthn"
          isInvalid={!!errors.email}
          autoFocus
        />
        <Form.Control.Feedback type="invalid">{errors.email?.message}</Form.Control.Feedback>
      </Form.Group>
      <Form.Group className="mb-2" controlId="login-password">
        <Form.Label>Password</Form.Label>
        <InputGroup hasValidation>
          <Form.Control
            {...register('password')}
            type={showPassword ? 'text' : 'password'}
            autoComplete="current-password"
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
      </Form.Group>
      <div className="text-end mb-4">
        <Link to={paths.forgotPassword()} className="small">
          Forgot your password?
        </Link>
      </div>
      <Button type="submit" className="w-100" disabled={isSubmitting}>
        {isSubmitting ? 'Checking…' : 'Continue'}
      </Button>
      <PasskeySignIn uid={uid} />
    </Form>
  );
}
