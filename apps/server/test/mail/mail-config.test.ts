import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { ensureMailClient, mailClient } from '../../src/modules/mail/mail-client.ts';
import { openClientSecret, sealClientSecret } from '../../src/oidc/client-secrets.ts';
import { MailConfigProblem, mailConfigCommand } from '../../src/modules/mail/config/mail-config.command.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { testEnv } from '../support/test-app.ts';
import { masterPasswdFile, masterPassword } from '../../src/modules/mail/config/mail-master-user.ts';

// `npm run atrium -- mail-config`: what an operator gets. The daemons themselves run this
// configuration in delivery.test.ts and sign-in.test.ts.

describe('mail-config', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await database?.drop();
  });

  const settings = (env: Record<string, string> = {}) =>
    loadConfig(
      testEnv({
        MAIL_SOCKETMAP_ADDRESS: '127.0.0.1:10027',
        MAIL_DICT_SOCKET: '/run/atrium/dict.sock',
        MAIL_HOST: 'mail.example.com',
        PORT: '8080',
        ...env,
      }),
    );

  const run = (args: string[], env: Record<string, string> = {}) => {
    const config = settings(env);
    return {
      config,
      // No database: mail-config runs beside a server holding the embedded one (issue 31).
      done: Promise.resolve().then(() => mailConfigCommand(args, () => config)),
    };
  };

  it('writes Postfix’s and Dovecot’s files for this deployment, the secret ones readable by root only', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'atrium-mail-config-'));
    const { config, done } = run([
      '--out',
      out,
      '--tls-cert',
      '/etc/ssl/mail.pem',
      '--tls-key',
      '/etc/ssl/mail.key',
    ]);
    await done;
    const read = (name: string) => readFileSync(path.join(out, name), 'utf8');
    const main = read('postfix/main.cf');
    expect(main).toContain('virtual_mailbox_domains = socketmap:inet:127.0.0.1:10027:atrium-domains');
    expect(main).toContain('virtual_mailbox_maps = socketmap:inet:127.0.0.1:10027:atrium-mailboxes');
    expect(main).toContain('virtual_alias_maps = socketmap:inet:127.0.0.1:10027:atrium-aliases');
    expect(main).toMatch(/^virtual_alias_domains =$/m);
    expect(main).toContain('smtpd_sender_login_maps = socketmap:inet:127.0.0.1:10027:atrium-sender-logins');
    expect(main).toContain('virtual_transport = lmtp:inet:127.0.0.1:24');
    expect(main).toContain('myhostname = mail.example.com');
    expect(main).toContain('smtpd_tls_cert_file = /etc/ssl/mail.pem');
    expect(read('postfix/master.cf')).toMatch(/^587 inet n - n - - smtpd$/m);
    const dovecot = read('dovecot/dovecot.conf');
    expect(dovecot).toContain('args = /etc/dovecot/atrium-oauth2-token.conf.ext');
    expect(dovecot).toContain('ssl = required');
    // IMAP with TLS from the first byte on 993, as discovery and device set-up tell devices.
    expect(dovecot).toMatch(/inet_listener imaps {\n\s*port = 993\n/);
    expect(dovecot).toContain('mail_home = /var/vmail/%{userdb:organization}/%{userdb:mailbox}');
    // Each mailbox's usage goes to Atrium's dict socket (Mail Settings' mailboxes).
    expect(dovecot).toMatch(/^mail_plugins = \$mail_plugins quota quota_clone$/m);
    expect(dovecot).toMatch(/^\s*quota_clone_dict = proxy:\/run\/atrium\/dict\.sock:atrium$/m);
    expect(read('dovecot/atrium-userdb.conf.ext')).toContain('uri = proxy:/run/atrium/dict.sock:atrium');
    // A full mailbox is refused at RCPT: Postfix asks Dovecot's quota-status on loopback.
    expect(main).toMatch(
      /^smtpd_recipient_restrictions = reject_unlisted_recipient, check_policy_service inet:127\.0\.0\.1:12340$/m,
    );
    // Port 25 alone then tells Atrium of each accepted recipient (the setup checklist's "Mail is
    // flowing"); submission keeps main.cf's checks.
    const master = read('postfix/master.cf');
    expect(master).toMatch(
      /^25 inet n - n - - smtpd\n {2}-o smtpd_recipient_restrictions=reject_unlisted_recipient,check_policy_service,inet:127\.0\.0\.1:12340,check_recipient_access,socketmap:inet:127\.0\.0\.1:10027:atrium-inbound$/m,
    );
    expect(master.match(/atrium-inbound/g)).toHaveLength(1);
    const quotaStatus = dovecot.slice(dovecot.indexOf('service quota-status {'));
    expect(quotaStatus).toMatch(/^\s*executable = quota-status -p postfix$/m);
    expect(quotaStatus).toMatch(/^\s*address = 127\.0\.0\.1\n\s*port = 12340$/m);
    expect(dovecot).toMatch(/^\s*quota_status_overquota = "552 5\.2\.2 Mailbox is full"$/m);

    // The secret derived from ATRIUM_SECRET, which the server registers at start.
    const { clientSecret } = mailClient(config);
    expect(await ensureMailClient(database.db, config)).toEqual(mailClient(config));
    expect(read('dovecot/atrium-oauth2-token.conf.ext')).toContain(
      `introspection_url = http://atrium-mail:${clientSecret}@127.0.0.1:8080/oidc/token/introspection`,
    );
    expect(read('dovecot/atrium-oauth2-password.conf.ext')).toContain(
      'grant_url = http://127.0.0.1:8080/api/mail/password-grant',
    );
    // The mail client's address goes with each app-password check (X-Dovecot-Auth-Remote).
    expect(read('dovecot/atrium-oauth2-password.conf.ext')).toMatch(/^send_auth_headers = yes$/m);
    expect(statSync(path.join(out, 'dovecot/atrium-oauth2-password.conf.ext')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(out, 'postfix/main.cf')).mode & 0o777).toBe(0o644);
    // Mail migration's master user: only the hash of a password derived from ATRIUM_SECRET.
    expect(dovecot).toMatch(/^auth_master_user_separator = \*$/m);
    expect(dovecot).toContain('args = scheme=SHA512 /etc/dovecot/atrium-master-users');
    expect(read('dovecot/atrium-master-users')).toBe(masterPasswdFile(masterPassword(config.secret)));
    expect(read('dovecot/atrium-master-users')).not.toContain(masterPassword(config.secret));
    expect(statSync(path.join(out, 'dovecot/atrium-master-users')).mode & 0o777).toBe(0o600);
  });

  // rspamd's milters beside OpenDKIM's are rspamd-config.test's; --no-rspamd leaves OpenDKIM's alone.
  it('with MAIL_DKIM_DIR, writes OpenDKIM’s configuration and hands submission’s mail to it', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'atrium-mail-config-'));
    await run(['--out', out, '--dkim-port', '8899', '--no-rspamd'], { MAIL_DKIM_DIR: '/var/lib/atrium/dkim' })
      .done;
    const read = (name: string) => readFileSync(path.join(out, name), 'utf8');
    const opendkim = read('opendkim/opendkim.conf');
    expect(opendkim).toMatch(/^Mode s$/m);
    expect(opendkim).toMatch(/^Socket inet:8899@127\.0\.0\.1$/m);
    // Without MAIL_DKIM_OPENDKIM_DIR, OpenDKIM reads MAIL_DKIM_DIR itself.
    expect(opendkim).toMatch(/^KeyTable file:\/var\/lib\/atrium\/dkim\/KeyTable$/m);
    expect(opendkim).toMatch(/^SigningTable file:\/var\/lib\/atrium\/dkim\/SigningTable$/m);
    expect(opendkim).toMatch(/^SenderMacro \{mail_addr\}$/m);
    expect(opendkim).toMatch(/^UserID opendkim$/m);
    // OpenDKIM's default safety check on the keys' owners and modes stays on.
    expect(opendkim).not.toMatch(/RequireSafeKeys/);
    const master = read('postfix/master.cf');
    // Submission only: mail arriving on port 25 is never signed.
    const submission = master.slice(master.indexOf('587 inet'), master.indexOf('pickup'));
    expect(submission).toContain('-o smtpd_milters=inet:127.0.0.1:8899');
    expect(submission).toContain('-o milter_default_action=tempfail');
    expect(master.slice(0, master.indexOf('587 inet'))).not.toContain('milter');
    expect(read('postfix/main.cf')).not.toContain('milter');
  });

  it('with MAIL_DKIM_OPENDKIM_DIR, points OpenDKIM at the copies there', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'atrium-mail-config-'));
    await run(['--out', out], {
      MAIL_DKIM_DIR: '/var/lib/atrium/dkim',
      MAIL_DKIM_OPENDKIM_DIR: '/etc/opendkim/atrium',
    }).done;
    const opendkim = readFileSync(path.join(out, 'opendkim/opendkim.conf'), 'utf8');
    expect(opendkim).toMatch(/^KeyTable file:\/etc\/opendkim\/atrium\/KeyTable$/m);
    expect(opendkim).toMatch(/^SigningTable file:\/etc\/opendkim\/atrium\/SigningTable$/m);
    expect(opendkim).not.toMatch(/RequireSafeKeys/);
  });

  it('registers Dovecot’s client with the derived secret, replacing one stored before', async () => {
    const config = settings();
    // A deployment from before: a random secret in the row.
    await database.db
      .updateTable('oidc_clients')
      .set({ client_secret_enc: sealClientSecret(config, 'an-old-random-secret') })
      .where('client_id', '=', 'atrium-mail')
      .execute();
    expect(await ensureMailClient(database.db, config)).toEqual(mailClient(config));
    const row = await database.db
      .selectFrom('oidc_clients')
      .select('client_secret_enc')
      .where('client_id', '=', 'atrium-mail')
      .executeTakeFirstOrThrow();
    expect(openClientSecret(config, row.client_secret_enc!)).toBe(mailClient(config).clientSecret);
  });

  it('puts quota-status on the port given, where Postfix asks it', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'atrium-mail-config-'));
    await run(['--out', out, '--quota-status-port', '12399']).done;
    const read = (name: string) => readFileSync(path.join(out, name), 'utf8');
    expect(read('postfix/main.cf')).toContain('check_policy_service inet:127.0.0.1:12399');
    expect(read('dovecot/dovecot.conf')).toMatch(/^\s*port = 12399$/m);
  });

  it('refuses an --out it cannot write into with one line naming it', async () => {
    const notADirectory = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-mail-out-')), 'file');
    writeFileSync(notADirectory, '');
    const refused = run(['--out', path.join(notADirectory, 'config')]).done;
    await expect(refused).rejects.toBeInstanceOf(MailConfigProblem);
    await expect(refused).rejects.toThrow(
      new RegExp(
        `^--out ${notADirectory}/config/postfix: a path component is not a directory \\(ENOTDIR\\) — choose a directory`,
      ),
    );
  });

  it('without MAIL_DKIM_DIR and with --no-rspamd, writes no OpenDKIM file and no milter', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'atrium-mail-config-'));
    await run(['--out', out, '--no-rspamd']).done;
    expect(() => statSync(path.join(out, 'opendkim/opendkim.conf'))).toThrow();
    expect(readFileSync(path.join(out, 'postfix/master.cf'), 'utf8')).not.toContain('milter');
  });

  it.each([
    [[], {}, /^--out is required/],
    [['--out', '/tmp/x', '--imap-port', '99999'], {}, /^--imap-port: expected a port/],
    [['--out', '/tmp/x', '--quota-status-port', '0'], {}, /^--quota-status-port: expected a port/],
    [['--out', '/tmp/x', '--tls-cert', '/a.pem'], {}, /^--tls-cert and --tls-key go together/],
    [['--out', '/tmp/x', '--mail-root', 'vmail'], {}, /^--mail-root: expected an absolute path/],
    [['--out', '/tmp/x'], { MAIL_SOCKETMAP_ADDRESS: '' }, /^Set MAIL_SOCKETMAP_ADDRESS/],
    [['--out', '/tmp/x'], { MAIL_DICT_SOCKET: '' }, /^Set MAIL_DICT_SOCKET/],
  ])('names what is wrong: %o %o', async (args, env, message) => {
    const attempt = run(args as string[], env as Record<string, string>).done;
    await expect(attempt).rejects.toBeInstanceOf(MailConfigProblem);
    await expect(attempt).rejects.toThrow(message);
  });
});
