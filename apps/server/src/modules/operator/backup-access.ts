import { isIPv4 } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, forbidden } from '../../lib/errors.ts';
import { answerAsUnknownRoute, hasBearerToken } from './operator-token.ts';

/**
 * Headers a proxy adds when it passes a request on. Caddy connects to Atrium from loopback, so
 * the address alone does not tell a backup on this host from a client out there: Caddy always
 * adds X-Forwarded-For (its reverse_proxy sets it on every request), and any of these means a
 * proxy, ours or another, stands between the caller and Atrium.
 */
const FORWARDING_HEADERS = [
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'forwarded',
  'via',
  'x-real-ip',
];

/**
 * The database dump's access check (issue 38): the backup command on this host, and nothing else.
 * Three keys, each enough to stop a caller from outside: the connection comes straight from
 * loopback (the socket's address, never the X-Forwarded-For that TRUST_PROXY believes), no proxy
 * passed it on, and it carries BACKUP_TOKEN — a token of its own, in the settings file only root
 * and the service user read, never the monitors' OPERATOR_TOKEN. Caddy also refuses the path
 * (install/caddyfile.ts). Without BACKUP_TOKEN the endpoint answers as an unknown route does.
 * Returns the 404 reply when it sent one; the handler goes on when it returns undefined.
 */
export function refuseUnlessBackupCaller(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string | undefined,
): FastifyReply | undefined {
  if (!token) return answerAsUnknownRoute(request, reply);
  if (!isLoopback(request.socket.remoteAddress)) {
    throw forbidden('The database dump is given only to a backup on this host, over loopback');
  }
  if (FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined)) {
    throw forbidden('The database dump is never given through a proxy: ask Atrium directly on this host');
  }
  if (!hasBearerToken(request, token)) {
    void reply.header('www-authenticate', 'Bearer realm="atrium-backup"');
    throw new AppError(
      401,
      'unauthenticated',
      'Send the BACKUP_TOKEN of the settings file as a Bearer token',
    );
  }
  return undefined;
}

/** 127.0.0.0/8 and ::1, also as an IPv4-mapped IPv6 address (a dual-stack listener's view). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  if (isIPv4(v4)) return v4.startsWith('127.');
  return address === '::1';
}
