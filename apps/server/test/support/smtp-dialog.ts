import { connect, type Socket } from 'node:net';

/** One SMTP reply: its code and all its lines' text. */
export interface SmtpReply {
  code: number;
  text: string;
}

/**
 * What a mail server on the internet does on port 25, spoken line by line so the test sees each
 * reply: EHLO, XCLIENT (Postfix takes the client's address and name from it, as if the message
 * came from there; only tests' Postfix allows it), MAIL, RCPT, DATA. Answers the first reply that
 * refused the message (4xx or 5xx, at whatever stage) or the final one after the data.
 */
export async function smtpDeliver(options: {
  port: number;
  /**
   * The address and reverse-DNS name the message comes from (`[UNAVAILABLE]`: none), said with
   * XCLIENT; undefined: loopback itself, no XCLIENT (a Postfix that does not allow it).
   */
  client?: { addr: string; name: string; helo: string };
  from: string;
  to: string;
  /** The message, headers and body, with \n or \r\n line ends. */
  data: string;
}): Promise<SmtpReply & { stage: string }> {
  const session = await SmtpSession.open(options.port);
  try {
    const client = options.client;
    const steps: Array<[string, string | undefined, number]> = [
      ['greeting', undefined, 220],
      ['EHLO', `EHLO ${client?.helo ?? 'localhost'}`, 250],
      ...(client
        ? ([
            ['XCLIENT', `XCLIENT ADDR=${client.addr} NAME=${client.name} HELO=${client.helo}`, 220],
            ['EHLO', `EHLO ${client.helo}`, 250],
          ] as Array<[string, string, number]>)
        : []),
      ['MAIL', `MAIL FROM:<${options.from}>`, 250],
      ['RCPT', `RCPT TO:<${options.to}>`, 250],
      ['DATA', 'DATA', 354],
    ];
    for (const [stage, command, expected] of steps) {
      const reply = await session.command(command);
      if (reply.code !== expected) return { stage, ...reply };
    }
    const body = options.data
      .replace(/\r?\n/g, '\r\n')
      .replace(/^\./gm, '..')
      .replace(/(\r\n)?$/, '\r\n');
    const reply = await session.command(`${body}.`);
    return { stage: 'end of data', ...reply };
  } finally {
    session.close();
  }
}

class SmtpSession {
  private buffer = '';
  private waiting: ((reply: SmtpReply | Error) => void) | undefined;
  private replies: Array<SmtpReply | Error> = [];

  private readonly socket: Socket;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.parse();
    });
    socket.on('error', (error) => this.push(error));
    socket.on('close', () => this.push(new Error('connection closed')));
  }

  static open(port: number): Promise<SmtpSession> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(new SmtpSession(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends `line` (nothing: reads the greeting) and reads the whole reply. */
  command(line: string | undefined): Promise<SmtpReply> {
    if (line !== undefined) this.socket.write(`${line}\r\n`);
    const ready = this.replies.shift();
    if (ready) return ready instanceof Error ? Promise.reject(ready) : Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      this.waiting = (reply) => (reply instanceof Error ? reject(reply) : resolve(reply));
    });
  }

  close(): void {
    if (!this.socket.destroyed) this.socket.end('QUIT\r\n');
  }

  private push(reply: SmtpReply | Error): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(reply);
    else this.replies.push(reply);
  }

  /** A reply ends at a line whose code is followed by a space (RFC 5321 §4.2.1). */
  private parse(): void {
    for (;;) {
      const lines = this.buffer.split('\r\n');
      const last = lines.findIndex((l) => /^\d{3} /.test(l) || /^\d{3}$/.test(l));
      if (last < 0) return;
      const reply = lines.slice(0, last + 1);
      this.buffer = lines.slice(last + 1).join('\r\n');
      this.push({ code: Number(reply[last]!.slice(0, 3)), text: reply.map((l) => l.slice(4)).join('\n') });
    }
  }
}
