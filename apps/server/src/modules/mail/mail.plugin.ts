import type { Server, Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { supervised } from '../../lib/supervised.ts';
import { appPasswordsRoutes } from './app-passwords/app-passwords.routes.ts';
import { appPasswordsAdminRoutes } from './app-passwords/app-passwords-admin.routes.ts';
import { dkimRotationRoutes } from './dkim/dkim-rotation.routes.ts';
import { registerDkimTablesJob, writeDkimTablesNow } from './dkim/dkim-tables.job.ts';
import { createDictServer, listenOnUnixSocket } from './protocols/dovecot-dict.ts';
import { quotaCloneCommit } from './lookups/dovecot-quota-clone.ts';
import { dovecotUserdb } from './lookups/dovecot-userdb.ts';
import { mailServerContacts } from './lookups/mail-server-contacts.ts';
import { mailboxesRoutes } from './settings/mailboxes.routes.ts';
import { mailAddressesRoutes } from './settings/mail-addresses.routes.ts';
import { mailAuthRoutes } from './lookups/mail-auth.routes.ts';
import { mailSettingsRoutes } from './settings/mail-settings.routes.ts';
import { ensureMailClient, type MailClient } from './mail-client.ts';
import { postfixTables } from './lookups/postfix-maps.ts';
import { INBOUND_MAP, inboundMailTable } from './lookups/inbound-mail.ts';
import { createSocketmapServer } from './protocols/socketmap-server.ts';
import { outOfOfficeRoutes } from '../out-of-office/out-of-office.routes.ts';
import { outOfOfficeDict } from '../out-of-office/out-of-office.service.ts';

/**
 * Mail (issue 14): Atrium is the directory of Debian's Postfix and Dovecot. Routes are always
 * there; the socketmap (Postfix) and dict (Dovecot) listeners start with the server only when
 * their settings are given, and close with it.
 */
export async function registerMail(app: FastifyInstance, deps: { db: Db; config: Config }): Promise<void> {
  const { db, config } = deps;
  const log = app.log.child({ module: 'mail' });
  // Read once, on the first grant: most deployments without mail never need the client.
  let client: Promise<MailClient> | undefined;
  const mailClient = () => (client ??= ensureMailClient(db, config));

  await app.register(appPasswordsRoutes({ db }));
  await app.register(appPasswordsAdminRoutes({ db }));
  await app.register(outOfOfficeRoutes({ db }));
  await app.register(mailAuthRoutes({ db, mailClient }));
  await app.register(mailSettingsRoutes({ db, config }));
  await app.register(dkimRotationRoutes({ db, config, jobs: app.jobs }));
  registerDkimTablesJob(app.jobs, { db, config, log });
  await app.register(mailAddressesRoutes({ db }));
  await app.register(mailboxesRoutes({ db, config }));
  const contacted = mailServerContacts(db, log);

  const servers: Server[] = [];
  const unixServers = new Set<Server>();
  // Postfix and Dovecot keep their connections open: closing the app ends them.
  const sockets = new Set<Socket>();
  const track = (server: Server) => {
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    servers.push(server);
  };
  app.addHook('onReady', async () => {
    const { socketmap, dictSocket, dkimDir } = config.mail;
    // A directory Atrium cannot write stops start-up here, like a socketmap address it cannot bind.
    if (dkimDir) await writeDkimTablesNow({ db, config, log }, dkimDir);
    if (socketmap) {
      const tables = { ...postfixTables(db), [INBOUND_MAP]: inboundMailTable(db, log) };
      const server = createSocketmapServer(tables, log, () => contacted('postfix'));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        // Shared with a draining server of the previous release under the supervisor.
        server.listen({ port: socketmap.port, host: socketmap.host, reusePort: supervised }, () => resolve());
      });
      track(server);
    }
    if (dictSocket) {
      const userdb = dovecotUserdb(db, config);
      // Pigeonhole's out-of-office script (priv/sieve/…) and the userdb (shared/userdb/…).
      const sieve = outOfOfficeDict(db);
      const server = createDictServer(
        {
          lookup: async (key, user) => {
            const script = await sieve(key, user);
            return script === undefined ? userdb(key) : script;
          },
          commit: quotaCloneCommit(db),
          onRequest: () => contacted('dovecot'),
        },
        log,
      );
      await listenOnUnixSocket(server, dictSocket);
      // Closing a Unix socket's server unlinks its path, which by then is a newer server's (the
      // supervisor's replacement took it over): a supervised server leaves it to its exit.
      if (supervised) unixServers.add(server);
      track(server);
    }
  });
  app.addHook('onClose', async () => {
    const closed = servers
      .filter((server) => !unixServers.has(server))
      .map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
    for (const socket of sockets) socket.destroy();
    await Promise.all(closed);
  });
}
