/** Field name → message, shown inline beside the form field. */
export type FieldErrors = Record<string, string>;

/**
 * Every expected failure is an AppError; the one error handler turns it into
 * `{ error: { code, message, fields? } }` with its status.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: FieldErrors | undefined;
  /** Extra response headers, e.g. Retry-After on throttling. */
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    fields?: FieldErrors,
    headers?: Record<string, string>,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.headers = headers;
  }
}

export const badRequest = (message: string, fields?: FieldErrors) =>
  new AppError(400, 'bad_request', message, fields);

/** One field is wrong; the message shows beside it. */
export const fieldError = (field: string, message: string, code = 'validation_failed') =>
  new AppError(400, code, message, { [field]: message });

export const unauthenticated = (message = 'Sign in to continue') =>
  new AppError(401, 'unauthenticated', message);

export const forbidden = (message = 'You do not have permission to do this') =>
  new AppError(403, 'forbidden', message);

/** Also used for other organisations' objects, so their existence never leaks. */
export const notFound = (what = 'The requested item') =>
  new AppError(404, 'not_found', `${what} was not found`);

export const conflict = (message: string, fields?: FieldErrors, code = 'conflict') =>
  new AppError(409, code, message, fields);

export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new AppError(429, 'rate_limited', message, undefined, {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
