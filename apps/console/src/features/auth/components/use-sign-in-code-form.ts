import { useState, type FormEvent } from 'react';
import { useForm, type Resolver } from 'react-hook-form';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';

interface SignInCodeValues {
  code: string;
  trustBrowser?: boolean;
}

/**
 * The form of a sign-in step that ends with a code (e-mailed, authenticator or recovery): on
 * success the browser goes back to the provider at `redirectTo`, which finishes the sign-in and
 * returns to the app that asked; a refusal goes beside the code field, or into `failure`.
 */
export function useSignInCodeForm(
  submit: { mutateAsync: (values: SignInCodeValues) => Promise<{ redirectTo: string }> },
  resolver: Resolver<SignInCodeValues>,
) {
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, formState } = useForm<SignInCodeValues>({
    resolver,
    defaultValues: { code: '', trustBrowser: false },
  });
  const submitCode = handleSubmit(async (values) => {
    setFailure(null);
    try {
      const { redirectTo } = await submit.mutateAsync(values);
      window.location.assign(redirectTo);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['code']));
      // Rethrown so that the form does not count as submitted successfully.
      throw error;
    }
  });
  const onSubmit = (event: FormEvent) => void submitCode(event).catch(() => undefined);
  return { register, formState, failure, setFailure, onSubmit };
}
