import type { FastifyRequest } from 'fastify';
import { sha256 } from '../../lib/crypto.ts';

/**
 * Clients send credentials with every request and sync many items at once. Each credential has its
 * own budget, so one device (or a guest on the office Wi-Fi) never uses up the others' behind the
 * same address; requests without credentials (a client's first, answered with the challenge) share
 * their address's. Wrong credentials are held back by the failure budget and sign-in throttle
 * (app-password-sign-in.ts), however many a client makes up.
 */
export const DAV_REQUESTS_PER_CREDENTIAL = 1200;
export const DAV_REQUESTS_WITHOUT_CREDENTIALS = 3000;

/** The rate limit of DAV routes whose keys start with `prefix` (the gate's, the directory's…). */
export function davRateLimit(prefix: string) {
  return {
    timeWindow: '1 minute',
    keyGenerator: (request: FastifyRequest) => {
      const header = request.headers.authorization;
      return header ? `${prefix}-credential:${sha256(header)}` : `${prefix}-address:${request.ip}`;
    },
    max: (_request: FastifyRequest, key: string) =>
      key.startsWith(`${prefix}-credential:`)
        ? DAV_REQUESTS_PER_CREDENTIAL
        : DAV_REQUESTS_WITHOUT_CREDENTIALS,
  };
}
