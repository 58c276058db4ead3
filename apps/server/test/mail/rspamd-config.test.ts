import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { mailConfigCommand } from '../../src/modules/mail/config/mail-config.command.ts';
import { rspamdControllerPassword } from '../../src/modules/mail/config/rspamd-config.ts';
import { testEnv } from '../support/test-app.ts';

// What `npm run atrium -- mail-config` writes for rspamd and how Postfix is wired to it, as an
// operator gets the files. spam-inbound.test.ts runs these files with the real daemons.

beforeAll(() => {
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterAll(() => vi.restoreAllMocks());

const config = loadConfig(
  testEnv({
    MAIL_SOCKETMAP_ADDRESS: '127.0.0.1:10027',
    MAIL_DICT_SOCKET: '/run/atrium/dict.sock',
    MAIL_HOST: 'mail.example.com',
    MAIL_DKIM_DIR: '/var/lib/atrium/dkim',
    MAIL_DKIM_OPENDKIM_DIR: '/etc/opendkim/atrium',
    PORT: '8080',
  }),
);

function mailConfig(args: string[] = []) {
  const out = mkdtempSync(path.join(tmpdir(), 'atrium-rspamd-config-'));
  mailConfigCommand(['--out', out, ...args], () => config);
  return {
    read: (name: string) => readFileSync(path.join(out, name), 'utf8'),
    has: (name: string) => existsSync(path.join(out, name)),
    mode: (name: string) => statSync(path.join(out, name)).mode & 0o777,
  };
}

/** master.cf's entry for a service: its line and the `-o` lines under it. */
function service(master: string, start: RegExp): string {
  const lines = master.split('\n');
  const at = lines.findIndex((l) => start.test(l));
  const rest = lines.slice(at + 1);
  const end = rest.findIndex((l) => !l.startsWith(' '));
  return [lines[at], ...rest.slice(0, end)].join('\n');
}

describe('mail-config: rspamd', () => {
  it('puts rspamd in front of delivery on 25 and ahead of OpenDKIM on submission, deferring while it is away', () => {
    const master = mailConfig().read('postfix/master.cf');
    const smtp = service(master, /^25 inet /);
    expect(smtp).toContain('-o smtpd_milters=inet:127.0.0.1:11332\n');
    expect(smtp).toContain('-o milter_default_action=tempfail');
    const submission = service(master, /^587 inet /);
    expect(submission).toContain('-o smtpd_milters=inet:127.0.0.1:11332,inet:127.0.0.1:8891\n');
    expect(submission).toContain('-o milter_default_action=tempfail');
    // Atrium's own mail on the loopback relay is signed, not scored.
    expect(master.match(/11332/g)).toHaveLength(2);
    // Nobody but the tests' Postfix lets a client say which address it speaks for.
    expect(mailConfig().read('postfix/main.cf')).not.toContain('xclient');
  });

  it('writes the controller password derived from ATRIUM_SECRET into a file only root reads (install gives rspamd its group)', () => {
    const files = mailConfig();
    const controller = files.read('rspamd/override.d/worker-controller.inc');
    const password = rspamdControllerPassword(config.secret);
    expect(password).toMatch(/^[\w-]{40,}$/);
    expect(controller).toContain(`password = "${password}";`);
    expect(controller).toContain(`enable_password = "${password}";`);
    // Loopback is not trusted without the password (Debian's default trusts it).
    expect(controller).toContain('secure_ip = null;');
    expect(files.mode('rspamd/override.d/worker-controller.inc')).toBe(0o600);
    expect(files.mode('rspamd/local.d/actions.conf')).toBe(0o644);
    // The same on every run, so whatever learns derives it too.
    expect(mailConfig().read('rspamd/override.d/worker-controller.inc')).toBe(controller);
    expect(rspamdControllerPassword('another secret')).not.toBe(password);
  });

  it('writes the thresholds, DMARC actions, greylisting and headers, with rspamd signing nothing', () => {
    const files = mailConfig();
    expect(files.read('rspamd/local.d/actions.conf')).toMatch(/reject = 15;\nadd_header = 6;\ngreylist = 4;/);
    expect(files.read('rspamd/local.d/dmarc.conf')).toMatch(
      /reject = "reject";\n\s*quarantine = "add_header";/,
    );
    expect(files.read('rspamd/local.d/greylist.conf')).toContain('timeout = 300;');
    expect(files.read('rspamd/local.d/worker-proxy.inc')).toContain('bind_socket = "127.0.0.1:11332";');
    expect(files.read('rspamd/local.d/worker-proxy.inc')).toContain('spam_header = "X-Spam";');
    expect(files.read('rspamd/local.d/milter_headers.conf')).toContain('"authentication-results"');
    expect(files.read('rspamd/local.d/dkim_signing.conf')).toContain('enabled = false;');
    expect(files.read('rspamd/local.d/redis.conf')).toContain('servers = "127.0.0.1:6379";');
    // The host's resolvers: no nameserver of its own.
    expect(files.read('rspamd/local.d/options.inc')).not.toContain('nameserver');
  });

  it('takes other ports, and --no-rspamd leaves rspamd out entirely', () => {
    const moved = mailConfig([
      '--rspamd-port',
      '12332',
      '--rspamd-controller-port',
      '12334',
      '--redis-port',
      '6380',
    ]);
    expect(moved.read('rspamd/local.d/worker-proxy.inc')).toContain('"127.0.0.1:12332"');
    expect(moved.read('rspamd/override.d/worker-controller.inc')).toContain('"127.0.0.1:12334"');
    expect(moved.read('rspamd/local.d/redis.conf')).toContain('"127.0.0.1:6380"');
    expect(moved.read('postfix/master.cf')).toContain('smtpd_milters=inet:127.0.0.1:12332');

    const without = mailConfig(['--no-rspamd']);
    expect(without.has('rspamd/local.d/worker-proxy.inc')).toBe(false);
    const master = without.read('postfix/master.cf');
    expect(service(master, /^25 inet /)).not.toContain('smtpd_milters');
    expect(service(master, /^587 inet /)).toContain('-o smtpd_milters=inet:127.0.0.1:8891\n');
  });
});
