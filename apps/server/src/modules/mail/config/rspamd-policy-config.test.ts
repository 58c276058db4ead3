import { describe, expect, it } from 'vitest';
import type { MailConfigOptions } from './mail-config.ts';
import { postfixMain, postfixMaster } from './postfix-config.ts';
import { listSelectors, rspamdMapUrl, rspamdPolicyFiles } from './rspamd-policy-config.ts';

// The organisations' policy as mail-config writes it; rspamd reading these files for real:
// test/mail-protection/rspamd-policy.test.ts.

const base = {
  hostname: 'mail.example.net',
  atriumUrl: 'http://127.0.0.1:8080/',
  socketmap: { host: '127.0.0.1', port: 10027 },
  dictSocket: '/run/atrium/dict.sock',
  client: { clientId: 'atrium-mail', clientSecret: 'secret' },
  listen: 'all',
  ports: { smtp: 25, submission: 587, imap: 143, lmtp: 24, auth: 12345, quotaStatus: 12340 },
  mailRoot: '/var/vmail',
  mailUser: 'vmail',
} as unknown as MailConfigOptions;

describe('rspamdPolicyFiles', () => {
  it('writes nothing without the maps’ token', () => {
    expect(rspamdPolicyFiles(base)).toEqual({});
  });

  it('looks every shape of key up in the allow and block maps, and reads settings from Atrium', () => {
    const files = rspamdPolicyFiles({ ...base, rspamdMapToken: 'tok' });
    const multimap = files['rspamd/local.d/multimap.conf']!;
    // Recipient domain or address × envelope or header sender × address, domain, registrable domain.
    expect(listSelectors()).toHaveLength(12);
    expect(multimap.match(/^ATRIUM_ALLOW_\w+ \{/gm)).toHaveLength(12);
    expect(multimap.match(/^ATRIUM_BLOCK_\w+ \{/gm)).toHaveLength(12);
    expect(multimap).toContain(`map = "${rspamdMapUrl('http://127.0.0.1:8080', 'tok', 'allow')}";`);
    expect(multimap).toContain(
      "selector = \"rcpts('smtp'):domain.lower;from('mime'):domain.lower.get_tld\";",
    );
    expect(multimap).toContain('action = "reject";');
    expect(files['rspamd/rspamd.conf.override']).toContain(
      'settings = "http://127.0.0.1:8080/api/mail/rspamd/tok/settings";',
    );
    expect(files['rspamd/override.d/options.inc']).toBe('map_watch_interval = 30s;\n');
  });
});

describe('sending limits in Postfix', () => {
  it('asks the policy service at the end of each submitted message, and goes on if it is away', () => {
    const o = { ...base, policy: { host: '127.0.0.1', port: 10040 } };
    expect(postfixMain(o)).toContain(
      'atrium_sending_limits = check_policy_service { inet:127.0.0.1:10040, default_action=DUNNO }',
    );
    const master = postfixMaster(o);
    const submission = master.slice(master.indexOf('587 inet'));
    expect(submission).toContain('-o smtpd_end_of_data_restrictions=$atrium_sending_limits');
    // Port 25 (mail from other servers) is not limited.
    expect(master.slice(0, master.indexOf('587 inet'))).not.toContain('atrium_sending_limits');
    expect(postfixMain(base)).not.toContain('atrium_sending_limits');
  });
});
