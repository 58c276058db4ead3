/**
 * Caddy in front of Atrium: the console at PUBLIC_URL's host and every organisation's name
 * (sites under the base domain, apps.<domain>) with a certificate Caddy obtains on demand after
 * asking Atrium whether it serves the name (docs/caddy.md). With --tls-cert/--tls-key that
 * certificate serves every name instead (a wildcard one, or tests on loopback).
 */
export interface CaddyfileOptions {
  publicHost: string;
  atriumPort: number;
  tls?: { cert: string; key: string };
  /**
   * Certificates from Caddy's own local CA instead of Let's Encrypt (a private network, a test):
   * still issued on demand, after asking Atrium. Browsers must trust Caddy's root.
   */
  internalTls?: boolean;
  /** Turns Caddy's admin API off (tests, several Caddies on one machine); hosts keep it for reload. */
  adminOff?: boolean;
  /** Ports other than 80/443 (tests on loopback). */
  httpPort?: number;
  httpsPort?: number;
  /** Caddy routes serving webmail on every site (webmail-files.ts); undefined: no webmail. */
  webmailRoutes?: string;
  /** Caddy routes for CalDAV/CardDAV at /dav/ on MAIL_HOST (dav-files.ts); undefined: none. */
  davRoutes?: string;
}

const HEADER = '# Written by `npm run atrium -- install`; run it again rather than editing.\n';

export function caddyfile(o: CaddyfileOptions): string {
  const upstream = `127.0.0.1:${o.atriumPort}`;
  const global = [
    o.httpPort ? `\thttp_port ${o.httpPort}` : '',
    o.httpsPort ? `\thttps_port ${o.httpsPort}` : '',
    o.adminOff ? '\tadmin off' : '',
    o.tls
      ? '\tauto_https disable_certs'
      : `\ton_demand_tls {\n\t\task http://${upstream}/api/proxy-hosts/check\n\t}`,
  ].filter(Boolean);
  const issuer = o.internalTls ? ' internal' : '';
  const tls = o.tls ? `\ttls ${o.tls.cert} ${o.tls.key}\n` : `\ttls${issuer} {\n\t\ton_demand\n\t}\n`;
  const webmail = o.webmailRoutes ? indent(o.webmailRoutes) : '';
  const dav = o.davRoutes ? indent(o.davRoutes) : '';
  const operator = indent(OPERATOR_ONLY_ON_HOST);
  return `${HEADER}{
${global.join('\n')}
}

# The console and the identity provider.
${o.publicHost} {
${o.tls ? `\ttls ${o.tls.cert} ${o.tls.key}\n` : o.internalTls ? '\ttls internal\n' : ''}${operator}\treverse_proxy ${upstream}
}

# Organisations' sites and own domains; Caddy asks Atrium before each new certificate.
https:// {
${tls}${operator}${dav}${webmail}\treverse_proxy ${upstream}
}
`;
}

/**
 * Atrium's operator endpoints are this host's (issue 38): from outside only the monitors' status
 * passes; the database dump and anything added later answer 404 here, before Atrium. Caddy's path
 * matcher ignores case and works on the decoded path; Atrium refuses the dump to any request a
 * proxy passed on in any case (modules/operator/backup-access.ts).
 */
const OPERATOR_ONLY_ON_HOST = `@operator-on-host {
\tpath /api/operator /api/operator/*
\tnot path /api/operator/status
}
respond @operator-on-host 404
`;

const indent = (block: string) =>
  block
    .trimEnd()
    .split('\n')
    .map((line) => (line ? `\t${line}` : line))
    .join('\n') + '\n';
