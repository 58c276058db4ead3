import { createServer, type AddressInfo } from 'node:net';

/** Ports this test process has handed out already. */
const handedOut = new Set<number>();

/**
 * A loopback port nothing listens on, never one this process handed out before: the kernel may
 * give back a port it has just given back, and a test that picks several ports before listening
 * on them (Atrium, its socketmap, Postfix and Dovecot) would otherwise get one twice.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
