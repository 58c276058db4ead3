import { describe, expect, it } from 'vitest';
import { ConfigError, cookieDomainOf, loadConfig } from './config.ts';

const base = { ATRIUM_SECRET: 'x'.repeat(40), DATA_DIR: '/tmp/atrium-config-test' };

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(base);
    expect(config.port).toBe(8080);
    expect(config.publicUrl.href).toBe('http://localhost:8080/');
    expect(config.secureCookies).toBe(false);
    expect(config.siteBaseDomain).toBe('localhost');
    expect(config.mailHost).toBe('mail.localhost');
    expect(config.mailFrom).toBe('Atrium <no-reply@localhost>');
    expect(config.accountPortalUrl).toBe('/profile');
    expect(config.allowUnverifiedDomains).toBe(false);
    expect(config.domainRecheckIntervalMs).toBe(600_000);
    expect(config.mail).toEqual({
      socketmap: undefined,
      dictSocket: undefined,
      imap: { host: '127.0.0.1', port: 143 },
    });
    expect(config.migrationPrivateHosts).toBe(false);
  });

  it('reads the mail listeners and where Dovecot’s IMAP is: a socketmap address, a dict socket path, host:port', () => {
    const config = loadConfig({
      ...base,
      MAIL_SOCKETMAP_ADDRESS: '[::1]:10027',
      MAIL_DICT_SOCKET: '/run/atrium/dict.sock',
      MAIL_IMAP_ADDRESS: 'mail.internal:1143',
    });
    expect(config.mail).toEqual({
      socketmap: { host: '::1', port: 10027 },
      dictSocket: '/run/atrium/dict.sock',
      imap: { host: 'mail.internal', port: 1143 },
    });
  });

  it('derives https behaviour and hosts from PUBLIC_URL', () => {
    const config = loadConfig({ ...base, PUBLIC_URL: 'https://console.example.com' });
    expect(config.secureCookies).toBe(true);
    expect(config.siteBaseDomain).toBe('console.example.com');
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PUBLIC_URL: 'not a url' }, 'PUBLIC_URL'],
    [{ PUBLIC_URL: 'ftp://example.com' }, 'PUBLIC_URL'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ DNS_SERVERS: '1.1.1.1,not-an-ip' }, 'DNS_SERVERS'],
    [{ ALLOW_UNVERIFIED_DOMAINS: 'maybe' }, 'ALLOW_UNVERIFIED_DOMAINS'],
    [{ ATRIUM_SECRET: 'short' }, 'ATRIUM_SECRET'],
    [{ APP_CATALOG: '/nonexistent/catalog.json' }, 'APP_CATALOG'],
    [{ ACCOUNT_PORTAL_URL: 'javascript:alert(1)' }, 'ACCOUNT_PORTAL_URL'],
    [{ ACCOUNT_PORTAL_URL: '//evil.example' }, 'ACCOUNT_PORTAL_URL'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'proxy.example.com' }, 'TRUST_PROXY'],
    [{ MAIL_SOCKETMAP_ADDRESS: '0.0.0.0:10027' }, 'MAIL_SOCKETMAP_ADDRESS'],
    [{ MAIL_SOCKETMAP_ADDRESS: '192.0.2.1:10027' }, 'MAIL_SOCKETMAP_ADDRESS'],
    [{ MAIL_SOCKETMAP_ADDRESS: '127.0.0.1' }, 'MAIL_SOCKETMAP_ADDRESS'],
    [{ MAIL_SOCKETMAP_ADDRESS: '127.0.0.1:0' }, 'MAIL_SOCKETMAP_ADDRESS'],
    [{ MAIL_DICT_SOCKET: 'relative/dict.sock' }, 'MAIL_DICT_SOCKET'],
  ])('names the bad setting in %o', (env, setting) => {
    const attempt = () => loadConfig({ ...base, ...env });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`^Invalid setting ${setting}: `));
  });

  describe('dynamic DNS updates', () => {
    const secret = Buffer.alloc(32, 1).toString('base64');
    const updates = {
      SITE_BASE_DOMAIN: 'sites.example.com',
      DNS_UPDATE_SERVER: '192.0.2.53',
      DNS_UPDATE_ZONE: 'example.com',
      DNS_UPDATE_TSIG: `hmac-sha256:atrium-key:${secret}`,
      DNS_UPDATE_TARGET: 'edge.example.net',
    };

    it('are off without DNS_UPDATE_SERVER', () => {
      expect(loadConfig(base).dnsUpdate).toBeUndefined();
    });

    it('read the server, zone, key, target and TTL', () => {
      expect(loadConfig({ ...base, ...updates }).dnsUpdate).toEqual({
        host: '192.0.2.53',
        port: 53,
        zone: 'example.com',
        tsig: { algorithm: 'hmac-sha256', name: 'atrium-key', secret },
        target: { cname: 'edge.example.net' },
        ttl: 300,
      });
      const addressed = loadConfig({
        ...base,
        ...updates,
        DNS_UPDATE_SERVER: '[2001:db8::53]:5353',
        DNS_UPDATE_TARGET: '192.0.2.10, 2001:db8::10',
        DNS_UPDATE_TTL: '60',
      }).dnsUpdate;
      expect(addressed).toMatchObject({
        host: '2001:db8::53',
        port: 5353,
        target: { ipv4: ['192.0.2.10'], ipv6: ['2001:db8::10'] },
        ttl: 60,
      });
    });

    it.each([
      [{ DNS_UPDATE_SERVER: 'ns1.example.com:53' }, 'DNS_UPDATE_SERVER'],
      [{ DNS_UPDATE_SERVER: '192.0.2.53:99999' }, 'DNS_UPDATE_SERVER'],
      [{ DNS_UPDATE_SERVER: undefined }, 'DNS_UPDATE_SERVER'],
      [{ DNS_UPDATE_ZONE: undefined }, 'DNS_UPDATE_ZONE'],
      [{ DNS_UPDATE_ZONE: 'other.org' }, 'DNS_UPDATE_ZONE'],
      [{ DNS_UPDATE_ZONE: 'ple.com' }, 'DNS_UPDATE_ZONE'],
      [{ DNS_UPDATE_TSIG: undefined }, 'DNS_UPDATE_TSIG'],
      [{ DNS_UPDATE_TSIG: `atrium-key:${secret}` }, 'DNS_UPDATE_TSIG'],
      [{ DNS_UPDATE_TSIG: `hmac-md4:atrium-key:${secret}` }, 'DNS_UPDATE_TSIG'],
      [{ DNS_UPDATE_TSIG: 'hmac-sha256:atrium-key:not*base64!' }, 'DNS_UPDATE_TSIG'],
      [{ DNS_UPDATE_TSIG: 'hmac-sha256:atrium-key:c2hvcnQ=' }, 'DNS_UPDATE_TSIG'],
      [{ DNS_UPDATE_TSIG: `hmac-sha256:bad key:${secret}` }, 'DNS_UPDATE_TSIG'],
      [{ DNS_UPDATE_TARGET: undefined }, 'DNS_UPDATE_TARGET'],
      [{ DNS_UPDATE_TARGET: 'not a host' }, 'DNS_UPDATE_TARGET'],
      [{ DNS_UPDATE_TARGET: 'edge.example.net, 192.0.2.1' }, 'DNS_UPDATE_TARGET'],
      [{ DNS_UPDATE_TTL: '0' }, 'DNS_UPDATE_TTL'],
      [{ DNS_UPDATE_TTL: 'soon' }, 'DNS_UPDATE_TTL'],
    ])('stop start-up naming the bad setting in %o', (env, setting) => {
      const attempt = () => loadConfig({ ...base, ...updates, ...env });
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(new RegExp(`^Invalid setting ${setting}: `));
    });
  });

  it('accepts an external account portal', () => {
    const url = 'https://accounts.example.com/me';
    expect(loadConfig({ ...base, ACCOUNT_PORTAL_URL: url }).accountPortalUrl).toBe(url);
  });

  it('accepts DNS servers with ports', () => {
    expect(loadConfig({ ...base, DNS_SERVERS: '127.0.0.1:5353, 10.0.0.1' }).dnsServers).toEqual([
      '127.0.0.1:5353',
      '10.0.0.1',
    ]);
  });

  it('takes a hop count or proxy addresses for TRUST_PROXY, never "trust anyone"', () => {
    expect(loadConfig(base).trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    const oneHop = loadConfig({ ...base, TRUST_PROXY: '1' }).trustProxy as (
      a: string,
      hop: number,
    ) => boolean;
    expect([oneHop('127.0.0.1', 0), oneHop('203.0.113.7', 1)]).toEqual([true, false]);
    expect(loadConfig({ ...base, TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
    ]);
  });

  it('never puts the cookie on a public suffix', () => {
    const domainOf = (url: string) => loadConfig({ ...base, PUBLIC_URL: url }).cookieDomain;
    expect(domainOf('https://console.example.com')).toBe('example.com');
    expect(domainOf('https://example.com')).toBe('example.com');
    // The parent of atrium.co.uk is co.uk, a public suffix: the registrable domain is used.
    expect(domainOf('https://atrium.co.uk')).toBe('atrium.co.uk');
    expect(domainOf('https://console.atrium.co.uk')).toBe('atrium.co.uk');
    expect(domainOf('https://team.github.io')).toBe('team.github.io');
    // No registrable domain at all: host-only.
    expect(domainOf('https://192.0.2.10')).toBeUndefined();
    expect(domainOf('https://localhost')).toBeUndefined();
    expect(domainOf('http://console.example.com')).toBeUndefined();
    expect(cookieDomainOf('a.b.example.co.uk')).toBe('b.example.co.uk');
  });
});
