import type { ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { accepts, readLog, spawnDaemon, uidOf } from './daemons.ts';
import { freePort } from './free-port.ts';

const DOVECOT = '/usr/sbin/dovecot';

/**
 * A second, independent Dovecot on loopback playing the old provider for mail migration: users
 * in a passwd-file with plain passwords, maildirs in a temporary directory, special-use folders
 * named as other providers name them ("Sent Items", "Deleted Items", "All Mail"). Nothing of Atrium's.
 */
export class OldImapServer {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'atrium-old-imap-'));
  port = 0;
  private child: ChildProcess | undefined;
  private readonly users = new Map<string, string>();

  static async start(users: Record<string, string>): Promise<OldImapServer> {
    if (!existsSync(DOVECOT))
      throw new Error('The mail migration tests need Dovecot: apt-get install dovecot-imapd');
    const server = new OldImapServer();
    chmodSync(server.dir, 0o755);
    for (const [user, pass] of Object.entries(users)) server.users.set(user, pass);
    server.port = await freePort();
    await server.run();
    return server;
  }

  private get log() {
    return path.join(this.dir, 'dovecot.log');
  }

  private async run(): Promise<void> {
    const mail = userInfo().uid === 0 ? uidOf('mail') : undefined;
    const owner = mail ? 'mail' : userInfo().username;
    const mailRoot = path.join(this.dir, 'mail');
    mkdirSync(mailRoot, { mode: 0o770 });
    if (mail) chownSync(mailRoot, mail.uid, mail.gid);
    writeFileSync(
      path.join(this.dir, 'users'),
      [...this.users].map(([user, pass]) => `${user}:{PLAIN}${pass}\n`).join(''),
      { mode: 0o640 },
    );
    // Dovecot's auth process reads it as the dovecot user.
    if (mail) chownSync(path.join(this.dir, 'users'), 0, uidOf('dovecot').gid);
    writeFileSync(
      path.join(this.dir, 'dovecot.conf'),
      `protocols = imap
listen = 127.0.0.1
base_dir = ${this.dir}/run
state_dir = ${this.dir}/run/state
log_path = ${this.log}
instance_name = atrium-old-imap-${this.port}
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
passdb {
  driver = passwd-file
  args = scheme=PLAIN ${this.dir}/users
}
userdb {
  driver = static
  args = uid=${owner} gid=${owner} home=${mailRoot}/%u
}
mail_location = maildir:~/Maildir
first_valid_uid = 1
first_valid_gid = 1
namespace inbox {
  inbox = yes
  separator = /
  mailbox "Sent Items" {
    auto = subscribe
    special_use = \\Sent
  }
  mailbox "Deleted Items" {
    auto = subscribe
    special_use = \\Trash
  }
  # Gmail's kind: every message again, which a migration must not copy.
  mailbox "All Mail" {
    auto = subscribe
    special_use = \\All
  }
}
service imap-login {
  inet_listener imap {
    port = ${this.port}
  }
  inet_listener imaps {
    port = 0
  }
}
`,
    );
    const { child, output } = spawnDaemon(DOVECOT, ['-F', '-c', path.join(this.dir, 'dovecot.conf')]);
    this.child = child;
    const deadline = Date.now() + 20_000;
    while (!(await accepts(this.port))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`the old provider's dovecot did not start:\n${output()}\n${this.logs()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  logs(): string {
    return readLog(this.log);
  }

  /** An IMAP session at the old provider, to fill a mailbox as its owner would have. */
  async signIn(user: string): Promise<ImapFlow> {
    const client = new ImapFlow({
      host: '127.0.0.1',
      port: this.port,
      secure: false,
      auth: { user, pass: this.users.get(user)! },
      logger: false,
    });
    await client.connect();
    return client;
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
