import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
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
      for (const issue of error.validation) {
        const field = issue.instancePath.replace(/^\//, '').replaceAll('/', '.') || '_';
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
    if (!isResponseSerializationError(error) && error.statusCode && error.statusCode < 500) {
      // Fastify's own client errors: bad JSON, wrong content type, body too large…
      const code = error.code ? error.code.replace(/^FST_ERR_/, '').toLowerCase() : 'bad_request';
      return reply
        .status(error.statusCode)
        .send({ error: { code, message: error.message } } satisfies ErrorBody);
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.status(500).send({
      error: { code: 'internal_error', message: 'Something went wrong', requestId: request.id },
    } satisfies ErrorBody);
  });
}
