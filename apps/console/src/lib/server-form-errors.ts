import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { ApiError } from './api-client.ts';

/**
 * Puts a failed request's field messages beside their fields (ARCHITECTURE.md, "Errors"). Returns the error
 * to show as an alert when it named no field of this form (or was not an API error at all).
 */
export function applyServerErrors<T extends FieldValues>(
  error: unknown,
  setError: UseFormSetError<T>,
  fields: readonly Path<T>[],
): ApiError | null {
  const apiError =
    error instanceof ApiError ? error : new ApiError(0, { code: 'error', message: String(error) });
  const own = Object.entries(apiError.fields ?? {}).filter(([field]) =>
    (fields as readonly string[]).includes(field),
  );
  own.forEach(([field, message], index) =>
    setError(field as Path<T>, { type: 'server', message }, { shouldFocus: index === 0 }),
  );
  return own.length > 0 ? null : apiError;
}
