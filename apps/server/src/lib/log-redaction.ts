import type { FastifyRequest } from 'fastify';

// Query parameters that carry a credential: a sign-in ticket, an authorization code, an ID token.
const SECRET_PARAMS = new Set(['ticket', 'code', 'state', 'id_token_hint', 'code_verifier', 'token']);
// Paths whose last part is a set-password link's token.
const TOKEN_PATH = /^(\/(?:api\/invitations|invite|reset-password)\/)[^/?]+/;

/**
 * A URL fit for the request log: set-password tokens in the path and credentials in the query
 * are replaced, so reading the logs never gives a way to sign in as someone.
 */
export function redactUrl(url: string): string {
  const [path = '', query] = url.split(/\?(.*)/s, 2);
  const safePath = path.replace(TOKEN_PATH, '$1[redacted]');
  if (!query) return safePath;
  const params = new URLSearchParams(query);
  for (const key of [...params.keys()]) if (SECRET_PARAMS.has(key)) params.set(key, '[redacted]');
  return `${safePath}?${params.toString().replaceAll('%5Bredacted%5D', '[redacted]')}`;
}

/** Fastify's request log entry, with the URL redacted. */
export function requestLogEntry(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
