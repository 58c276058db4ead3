import { SMTPServer } from 'smtp-server';

const CODE = /\b(\d{6})\b/;

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  raw: string;
}

/**
 * A real SMTP server on loopback. Atrium sends to it through SMTP_URL; tests read
 * the codes and links out of what it received.
 */
export class Mailbox {
  readonly messages: ReceivedMail[] = [];
  private server: SMTPServer;
  private waiters: Array<() => void> = [];
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          this.messages.push(
            parseMail(
              raw,
              session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            ),
          );
          for (const wake of this.waiters.splice(0)) wake();
          callback();
        });
      },
    });
  }

  /** On a free port, or on `port` (a mail server coming back where it was). */
  static async start(port = 0): Promise<Mailbox> {
    const mailbox = new Mailbox();
    await new Promise<void>((resolve) => mailbox.server.listen(port, '127.0.0.1', resolve));
    mailbox.port = (mailbox.server.server.address() as { port: number }).port;
    return mailbox;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The newest message to an address (optionally whose subject matches), waiting for it to arrive. */
  async waitFor(
    to: string,
    options: {
      subject?: RegExp;
      after?: number;
      timeoutMs?: number;
      where?: (mail: ReceivedMail) => boolean;
    } = {},
  ): Promise<ReceivedMail> {
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    const address = to.toLowerCase();
    for (;;) {
      const found = this.messages
        .slice(options.after ?? 0)
        .filter(
          (m) =>
            m.to.includes(address) &&
            (!options.subject || options.subject.test(m.subject)) &&
            (!options.where || options.where(m)),
        )
        .at(-1);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`No mail to ${to} within the time allowed`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /**
   * The 6-digit code in the newest message to an address that carries one: notices (a password
   * changed, a new sign-in) sent around the same time are passed over.
   */
  async waitForCode(to: string, options: { subject?: RegExp; after?: number } = {}): Promise<string> {
    const mail = await this.waitFor(to, { ...options, where: (m) => CODE.test(m.text) });
    return CODE.exec(mail.text)![1]!;
  }

  /** The first http(s) link in the newest message to an address. */
  async waitForLink(to: string, options: { subject?: RegExp; after?: number } = {}): Promise<string> {
    const mail = await this.waitFor(to, options);
    const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
    if (!link) throw new Error(`The mail to ${to} carries no link: ${mail.text}`);
    return link;
  }

  /** Count of messages so far; pass it as `after` to wait only for newer ones. */
  get count(): number {
    return this.messages.length;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function parseMail(raw: string, to: string[]): ReceivedMail {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = parseHeaders(head);
  const body = rest.join('\r\n\r\n');
  const parts = collectParts(headers, body);
  return {
    to,
    subject: decodeWords(headers['subject'] ?? ''),
    text: parts.find((p) => p.type.startsWith('text/plain'))?.body ?? '',
    html: parts.find((p) => p.type.startsWith('text/html'))?.body ?? '',
    raw,
  };
}

function parseHeaders(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return headers;
}

function collectParts(headers: Record<string, string>, body: string): Array<{ type: string; body: string }> {
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!boundary) return [{ type, body: decodeBody(body, headers['content-transfer-encoding']) }];
  return body
    .split(`--${boundary}`)
    .slice(1)
    .filter((part) => !part.startsWith('--'))
    .flatMap((part) => {
      const [partHead = '', ...partBody] = part.replace(/^\r?\n/, '').split(/\r?\n\r?\n/);
      return collectParts(parseHeaders(partHead), partBody.join('\r\n\r\n'));
    });
}

function decodeBody(body: string, encoding = '7bit'): string {
  const e = encoding.toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

/** Soft line breaks dropped, =XX turned back into bytes, the bytes read as UTF-8 (a literal % stays). */
function decodeQuotedPrintable(body: string): string {
  const text = body.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === '=' ? /^[0-9A-F]{2}$/i.exec(text.slice(i + 1, i + 3))?.[0] : undefined;
    if (hex) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_m, kind: string, text: string) =>
    kind.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeBody(text.replaceAll('_', ' '), 'quoted-printable'),
  );
}
