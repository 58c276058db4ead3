import { createServer, type Server, type Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

/** One policy request's attributes (`name=value` lines), answered with an access(5) action. */
export type PolicyHandler = (attributes: Map<string, string>) => Promise<string>;

const IDLE_TIMEOUT_MS = 5 * 60 * 1000;
/** Postfix's requests are a few hundred bytes; a client sending more is not Postfix. */
const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * Postfix's SMTP access policy delegation protocol (SMTPD_POLICY_README): each request is
 * `name=value` lines ended by an empty line, each answer `action=<action>` and an empty line, on a
 * connection Postfix keeps for several requests. Listens on loopback only (config.ts). A handler
 * that fails answers DUNNO: a sending limit is a brake, and a failed count must not hold everyone's
 * mail.
 */
export function createPolicyServer(handler: PolicyHandler, log: FastifyBaseLogger): Server {
  return createServer((socket: Socket) => {
    socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    let buffer = '';
    // Answers go out in request order even though handlers are asynchronous.
    let queue = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (buffer.length > MAX_REQUEST_BYTES) {
        socket.destroy();
        return;
      }
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const attributes = new Map<string, string>();
        for (const line of buffer.slice(0, end).split('\n')) {
          const eq = line.indexOf('=');
          if (eq > 0) attributes.set(line.slice(0, eq), line.slice(eq + 1));
        }
        buffer = buffer.slice(end + 2);
        const answer = handler(attributes).catch((error: unknown) => {
          log.error({ err: error }, 'policy request failed');
          return 'DUNNO';
        });
        queue = queue.then(async () => {
          const action = (await answer).replace(/[\r\n]/g, ' ');
          if (!socket.destroyed) socket.write(`action=${action}\n\n`);
        });
      }
    });
  });
}
