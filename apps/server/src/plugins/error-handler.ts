import type { FastifyError, FastifyInstance } from 'fastify';
import { UNSTORABLE_MESSAGE } from '@atrium/contracts/text';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable } from '../lib/database-errors.ts';
import { AppError, type FieldErrors } from '../lib/errors.ts';

interface ErrorBody {
  error: { code: string; message: string; fields?: FieldErrors; requestId?: string };
}

/** The one place errors become responses: `{ error: { code, message, fields? } }`, never a stack. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      if (error.headers) void reply.headers(error.headers);
      const body: ErrorBody = { error: { code: error.code, message: error.message } };
      if (error.fields) body.error.fields = error.fields;
      return reply.status(error.status).send(body);
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const fields: FieldErrors = {};
      // A whole part of the request of the wrong shape (a body that is not an object) is named as
      // that part: body, query or params.
      const part = error.validationContext === 'querystring' ? 'query' : (error.validationContext ?? '_');
      for (const issue of error.validation) {
        const field = issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || part;
        fields[field] ??= issue.message ?? 'is not valid';
      }
      const first = Object.entries(fields)[0];
      const message = first
        ? `${first[0] === '_' ? 'Request' : first[0]}: ${first[1]}`
        : 'The request is not valid';
      return reply
        .status(400)
        .send({ error: { code: 'validation_failed', message, fields } } satisfies ErrorBody);
    }
    if (error.statusCode === 429) {
      return reply
        .status(429)
        .send({ error: { code: 'rate_limited', message: error.message } } satisfies ErrorBody);
    }
    const bodyProblem = bodyProblemOf(error);
    if (bodyProblem) {
      const [status, code, message] = bodyProblem;
      return reply.status(status).send({
        error: { code, message: `body: ${message}`, fields: { body: message } },
      } satisfies ErrorBody);
    }
    if (!isResponseSerializationError(error) && error.statusCode && error.statusCode < 500) {
      // Fastify's own client errors: bad JSON, wrong content type, body too large…
      const code = error.code ? error.code.replace(/^FST_ERR_/, '').toLowerCase() : 'bad_request';
      return reply
        .status(error.statusCode)
        .send({ error: { code, message: error.message } } satisfies ErrorBody);
    }
    const pgCode = (error as { code?: unknown }).code;
    if (pgCode === '22021' || pgCode === '22P05') {
      // Text PostgreSQL cannot store (a NUL, a \u0000 or lone surrogate escape in jsonb) that got
      // past validation: the input guard and the schemas should have refused it, so it is logged,
      // but it is the request's fault and the answer is the API's 400, never a 500.
      request.log.warn({ err: error }, 'unstorable text reached the database');
      return reply.status(400).send({
        error: { code: 'validation_failed', message: UNSTORABLE_MESSAGE },
      } satisfies ErrorBody);
    }
    if (isDatabaseUnavailable(error)) {
      // Not a bug of ours: the database is restarting or out of reach. Say so; a retry may work.
      request.log.warn({ err: error }, 'database unavailable');
      return reply
        .status(503)
        .header('retry-after', '5')
        .send({
          error: {
            code: 'database_unavailable',
            message: 'The database is not reachable right now. Try again in a moment.',
            requestId: request.id,
          },
        } satisfies ErrorBody);
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.status(500).send({
      error: { code: 'internal_error', message: 'Something went wrong', requestId: request.id },
    } satisfies ErrorBody);
  });
}

/**
 * A body Fastify could not read (not JSON, a type the route does not take, too large): a 4xx
 * that names the body as the field, in words a client developer can act on.
 */
function bodyProblemOf(error: FastifyError): [number, string, string] | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return [400, 'invalid_json', `The request body is not valid JSON (${error.message})`];
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return [415, 'unsupported_media_type', 'Send the body as application/json'];
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return [413, 'body_too_large', 'The request body is too large'];
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return [400, 'bad_request', 'The request body does not match its Content-Length'];
  }
  // JSON.parse's own error (also a prototype-poisoning attempt refused by the parser).
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return [400, 'invalid_json', `The request body is not valid JSON (${error.message})`];
  }
  return undefined;
}
