import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import { MAIL_HOST, type InstalledHost } from './installed-host.ts';

// The clients of an installed host while it is updated or restarted (issue 41): the web at 10
// requests a second per kind, a mail client signing in over IMAP and one submitting on 587, each
// again as soon as it is done. Every outcome is counted by what a person would see.

export interface HttpTally {
  sent: number;
  failed: string[];
  /** The longest time without an answer (from the first failure of a run to its last), in ms. */
  outageMs: number;
}

export interface MailTally {
  tries: number;
  ok: number;
  /** Refused as a wrong password: IMAP's AUTHENTICATIONFAILED, SMTP's 535. Never acceptable. */
  authFailures: string[];
  /** A 5xx other than 535 (the message refused for good). Never acceptable. */
  permanent: string[];
  /** Try again later: IMAP's UNAVAILABLE, SMTP's 4xx, a refused or dropped connection. */
  temporary: string[];
}

const emptyMail = (): MailTally => ({ tries: 0, ok: 0, authFailures: [], permanent: [], temporary: [] });

export interface LoadOptions {
  host: InstalledHost;
  /** Each answers whether the response is the endpoint's own answer. */
  http: { url: string; headers?: Record<string, string>; answered: (r: Response) => Promise<boolean> }[];
  /** Signs in over IMAP and submits as this user, with an app password. */
  mail: { user: string; pass: string };
}

export interface Load {
  stop(): Promise<{ http: HttpTally; imap: MailTally; submission: MailTally }>;
}

export function startLoad(options: LoadOptions): Load {
  const http: HttpTally = { sent: 0, failed: [], outageMs: 0 };
  const imap = emptyMail();
  const submission = emptyMail();
  let stopped = false;
  let firstFailure: number | undefined;
  const requests: Promise<void>[] = [];

  const one = async (spec: LoadOptions['http'][number]) => {
    http.sent++;
    const at = Date.now();
    const outcome = await fetch(spec.url, {
      headers: spec.headers,
      signal: AbortSignal.timeout(10_000),
    }).then(
      async (r) => ((await spec.answered(r)) ? undefined : `HTTP ${r.status}`),
      (e: Error) => (e.cause as { code?: string } | undefined)?.code ?? e.message,
    );
    if (outcome) {
      http.failed.push(`${new URL(spec.url).pathname}: ${outcome}`);
      firstFailure ??= at;
      http.outageMs = Math.max(http.outageMs, Date.now() - firstFailure);
    } else {
      firstFailure = undefined;
    }
  };
  let tick = 0;
  const timer = setInterval(() => {
    // The last spec (the operator's status) is throttled to once a second.
    options.http.forEach((spec, i) => {
      if (i < options.http.length - 1 || tick % 10 === 0) requests.push(one(spec));
    });
    tick++;
  }, 100);

  const loop = async (
    tally: MailTally,
    attempt: () => Promise<void>,
    classify: (e: Error) => keyof MailTally,
  ) => {
    while (!stopped) {
      tally.tries++;
      try {
        await attempt();
        tally.ok++;
      } catch (error) {
        const kind = classify(error as Error);
        (tally[kind] as string[]).push((error as Error).message.split('\n')[0]!.slice(0, 200));
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const { host, mail } = options;
  const imapLoop = loop(
    imap,
    async () => {
      const client = new ImapFlow({
        host: '127.0.0.1',
        port: host.ports.imap,
        secure: false,
        tls: { servername: MAIL_HOST, ca: host.mailCa() },
        auth: mail,
        logger: false,
      });
      client.on('error', () => undefined);
      await client.connect();
      await client.logout();
    },
    (e) => {
      const failure = e as Error & { authenticationFailed?: boolean; serverResponseCode?: string };
      if (failure.serverResponseCode === 'UNAVAILABLE') return 'temporary';
      return failure.authenticationFailed ? 'authFailures' : 'temporary';
    },
  );
  let sentCount = 0;
  const submissionLoop = loop(
    submission,
    async () => {
      const transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port: host.ports.submission,
        secure: false,
        requireTLS: true,
        tls: { servername: MAIL_HOST, ca: host.mailCa() },
        auth: mail,
        name: 'phone.example.net',
      });
      try {
        await transport.sendMail({
          from: mail.user,
          to: mail.user,
          subject: `Sent during the update ${++sentCount}`,
          text: 'From a phone, while the host was updated.\n',
        });
      } finally {
        transport.close();
      }
    },
    (e) => {
      const code = (e as Error & { responseCode?: number }).responseCode;
      if (code === 535) return 'authFailures';
      return code !== undefined && code >= 500 ? 'permanent' : 'temporary';
    },
  );

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.all([...requests, imapLoop, submissionLoop]);
      return { http, imap, submission };
    },
  };
}

/** One line of what the clients saw, for the test's output and the note. */
export function describeLoad(what: string, t: Awaited<ReturnType<Load['stop']>>): string {
  // The distinct answers of each kind, so a run's note says what clients were told.
  const seen = (list: string[]) =>
    list.length === 0 ? '' : ` (${[...new Set(list)].slice(0, 3).join(' | ')})`;
  const mail = (name: string, m: MailTally) =>
    `${name} ${m.ok}/${m.tries} ok, ${m.authFailures.length} wrong-password, ${m.permanent.length} 5xx, ` +
    `${m.temporary.length} temporary${seen(m.temporary)}`;
  return (
    `${what}: HTTP ${t.http.sent} requests, ${t.http.failed.length} failed, longest outage ${t.http.outageMs} ms; ` +
    `${mail('IMAP logins', t.imap)}; ${mail('submissions', t.submission)}`
  );
}
