import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Before closing, when a new server has taken over: see registerHandover. */
    handOver(waitMs: number): Promise<void>;
  }
}

/**
 * On PostgreSQL the supervisor's new server takes over while the old one still listens
 * (supervisor/supervisor.ts). Closing the old one at once would close kept-alive connections a
 * client was about to reuse: Dovecot's next check of an app password would fail, and a phone be
 * told to try again. So for a moment it goes on answering, telling each client to reconnect after
 * its answer (`Connection: close`), which reaches the new server; Dovecot drops idle ones itself
 * after a second (max_idle_time_msecs, mail-config.ts). Then it closes.
 */
export function registerHandover(app: FastifyInstance): void {
  let handingOver = false;
  app.addHook('onSend', async (_request, reply) => {
    if (handingOver) void reply.header('connection', 'close');
  });
  app.decorate('handOver', async (waitMs: number) => {
    handingOver = true;
    await sleep(waitMs);
  });
}
