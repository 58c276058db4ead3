import type { Server } from 'node:net';
import { createSaslRelay } from './sasl-relay.ts';

/** `127.0.0.1:10028` → host and port (the settings install writes are loopback addresses). */
function hostAndPort(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(':');
  return { host: value.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(value.slice(at + 1)) };
}

/**
 * The supervisor's SASL relay (sasl-relay.ts) as the settings ask for it: MAIL_SASL_ADDRESS,
 * where Postfix asks (mail-config.ts), in front of MAIL_DOVECOT_AUTH_ADDRESS. Settings read again
 * at each replacement; a changed address gets a new listener, none closes it.
 */
export class SaslRelayListener {
  private current: { key: string; server: Server } | undefined;

  async apply(env: NodeJS.ProcessEnv): Promise<void> {
    const listen = env.MAIL_SASL_ADDRESS;
    const upstream = env.MAIL_DOVECOT_AUTH_ADDRESS;
    const key = listen && upstream ? `${listen} ${upstream}` : '';
    if (this.current?.key === key) return;
    this.close();
    if (!listen || !upstream) return;
    const server = createSaslRelay(hostAndPort(upstream), {
      warn: (message) => console.error(`atrium supervisor: ${message}`),
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(hostAndPort(listen), () => resolve());
      });
      this.current = { key, server };
    } catch (error) {
      // Atrium still serves; submission's sign-ins wait for the address (doctor names it).
      console.error(`atrium supervisor: MAIL_SASL_ADDRESS ${listen}: ${(error as Error).message}`);
    }
  }

  close(): void {
    this.current?.server.close();
    this.current = undefined;
  }
}
