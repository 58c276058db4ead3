import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';

export interface ReceivedLogout {
  token: string;
  claims: Record<string, unknown>;
  /** The status this endpoint answered the delivery with. */
  answered: number;
}

/**
 * An app's back-channel logout endpoint on loopback (node:http): records every POSTed
 * `logout_token`, answering 200, or the statuses queued with `failNext`.
 */
export class LogoutReceiver {
  readonly received: ReceivedLogout[] = [];
  private readonly answers: number[] = [];
  private waiters: Array<() => void> = [];
  private readonly server: Server;

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(): Promise<LogoutReceiver> {
    const server = createServer();
    const receiver = new LogoutReceiver(server);
    server.on('request', (request, response) => {
      void readBody(request).then((body) => {
        const answered = receiver.answers.shift() ?? 200;
        const token = new URLSearchParams(body).get('logout_token');
        if (request.method === 'POST' && token) {
          receiver.received.push({ token, claims: decodeJwt(token), answered });
          for (const wake of receiver.waiters.splice(0)) wake();
        }
        response.writeHead(answered, { 'cache-control': 'no-store' }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/backchannel-logout`;
  }

  /** The next deliveries answer these statuses, in order (then 200 again). */
  failNext(...statuses: number[]): void {
    this.answers.push(...statuses);
  }

  /** The first delivery (accepted or not, as `answered` says) that matches. */
  async waitFor(
    matches: (claims: Record<string, unknown>) => boolean,
    answered = 200,
  ): Promise<ReceivedLogout> {
    for (;;) {
      const found = this.received.find((r) => r.answered === answered && matches(r.claims));
      if (found) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
