import type { Server, Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { supervised } from '../../lib/supervised.ts';
import { mailProtectionRoutes } from './mail-protection.routes.ts';
import { createPolicyServer } from './policy-server.ts';
import { rspamdMapsRoutes } from './rspamd-maps.routes.ts';
import { checkSending, DUNNO } from './sending-limits.service.ts';

/**
 * Mail that protects its people (issue 44): spam settings and sender lists (routes), the maps
 * rspamd polls, and the policy service Postfix's submission asks for sending limits (started with
 * the server when MAIL_POLICY_ADDRESS is set, closed with it).
 */
export async function registerMailProtection(
  app: FastifyInstance,
  deps: { db: Db; config: Config },
): Promise<void> {
  await app.register(mailProtectionRoutes(deps));
  await app.register(rspamdMapsRoutes(deps));
  const address = deps.config.mail.policy;
  if (!address) return;
  const log = app.log.child({ module: 'mail-protection' });
  const server: Server = createPolicyServer(async (attributes) => {
    const login = attributes.get('sasl_username');
    // Only signed-in senders are limited (submission); anything else is not ours to count.
    if (!login) return DUNNO;
    const recipients = Number(attributes.get('recipient_count') ?? '1') || 1;
    return checkSending({ ...deps, log }, { login, recipients });
  }, log);
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.addHook('onReady', async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Shared with a draining server of the previous release under the supervisor.
      server.listen({ port: address.port, host: address.host, reusePort: supervised }, () => resolve());
    });
  });
  app.addHook('onClose', async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    if (server.listening) await closed;
  });
}
