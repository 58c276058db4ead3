import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A second IMAP listener on every address of this host (dual-stack `::`, so 127.0.0.1, ::1 and
 * the host's own 192.0.2.2 all reach it) that records each connection and each command it is
 * sent, and refuses every login. A migration that must not connect is aimed at its port: any
 * connection shows here, and a login attempt shows as `AUTHENTICATE PLAIN`.
 */
export class ImapTripwire {
  readonly connections: Array<{ from: string; commands: string[] }> = [];
  private readonly sockets = new Set<Socket>();

  private readonly server: Server;

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(): Promise<ImapTripwire> {
    const server = createServer();
    const tripwire = new ImapTripwire(server);
    server.on('connection', (socket) => tripwire.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: 0, host: '::', ipv6Only: false }, resolve);
    });
    return tripwire;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    const connection = { from: socket.remoteAddress ?? '', commands: [] as string[] };
    this.connections.push(connection);
    let buffered = '';
    let authenticating: string | undefined;
    socket.write('* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] tripwire ready\r\n');
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      let end: number;
      while ((end = buffered.indexOf('\r\n')) !== -1) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (authenticating) {
          socket.write(`${authenticating} NO [AUTHENTICATIONFAILED] Authentication failed\r\n`);
          authenticating = undefined;
          continue;
        }
        const [tag, command = '', ...rest] = line.split(' ');
        connection.commands.push([command.toUpperCase(), ...rest.slice(0, 1)].join(' '));
        switch (command.toUpperCase()) {
          case 'CAPABILITY':
            socket.write(`* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n${tag} OK done\r\n`);
            break;
          case 'AUTHENTICATE':
            if (rest.length > 1) socket.write(`${tag} NO [AUTHENTICATIONFAILED] Authentication failed\r\n`);
            else {
              authenticating = tag;
              socket.write('+ \r\n');
            }
            break;
          case 'LOGIN':
            socket.write(`${tag} NO [AUTHENTICATIONFAILED] Authentication failed\r\n`);
            break;
          case 'LOGOUT':
            socket.end(`* BYE\r\n${tag} OK done\r\n`);
            break;
          default:
            socket.write(`${tag} BAD unknown command\r\n`);
        }
      }
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
