import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256 } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';

/**
 * The operator endpoints' access check. Without OPERATOR_TOKEN an endpoint answers exactly what an
 * unknown route does (console-static.ts): nothing to find. A missing or wrong token is 401.
 * Returns the 404 reply when it sent one; the handler goes on when it returns undefined.
 */
export function refuseWithoutOperatorToken(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string | undefined,
): FastifyReply | undefined {
  if (!token) return answerAsUnknownRoute(request, reply);
  if (!hasBearerToken(request, token)) {
    void reply.header('www-authenticate', 'Bearer realm="atrium-operator"');
    throw new AppError(
      401,
      'unauthenticated',
      'Send the OPERATOR_TOKEN of the settings file as a Bearer token',
    );
  }
  return undefined;
}

/** What an unknown route answers (console-static.ts): an endpoint without its token shows nothing. */
export const answerAsUnknownRoute = (request: FastifyRequest, reply: FastifyReply) =>
  reply
    .status(404)
    .send({ error: { code: 'not_found', message: `No route GET ${request.url.split('?')[0]}` } });

/**
 * Whether the request carries `expected` as its Bearer token. Compares digests, so the comparison
 * takes the same time whatever the sent token's length.
 */
export function hasBearerToken(request: FastifyRequest, expected: string): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match) return false;
  return timingSafeEqual(Buffer.from(sha256(match[1]!)), Buffer.from(sha256(expected)));
}
