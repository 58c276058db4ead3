import { DAV_ERROR_LINES } from './dav-files.ts';

/**
 * Caddy in front of Atrium: the console at PUBLIC_URL's host, MAIL_HOST (devices' /dav/, and the
 * certificate Postfix and Dovecot serve too: mail-tls-files.ts) and every organisation's name
 * (sites under the base domain, apps.<domain>, mta-sts.<domain> for the MTA-STS policy) with a
 * certificate Caddy obtains on demand after asking Atrium whether it serves the name (docs/caddy.md). The console's and MAIL_HOST's are
 * obtained at start. An operator's --tls-cert serves the names it covers; Caddy still obtains
 * the others (issue 40).
 */
export interface CaddyfileOptions {
  publicHost: string;
  atriumPort: number;
  /** MAIL_HOST, its own site so Caddy holds its certificate from the start; undefined: no mail. */
  mailHost?: string;
  /** SITE_BASE_DOMAIN: `*.<it>` gets its own site when the operator's certificate covers it. */
  siteBaseDomain?: string;
  /**
   * The operator's certificate. `covers` says which names it is valid for; without it the one
   * file serves every name and Caddy obtains none (tests on loopback with a certificate of theirs).
   */
  tls?: { cert: string; key: string; covers?: (host: string) => boolean };
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
  /** Caddy's own log file (it rolls it itself); undefined: standard error. */
  log?: string;
  /** Caddy routes serving webmail on every site (webmail-files.ts); undefined: no webmail. */
  webmailRoutes?: string;
  /** Caddy routes for CalDAV/CardDAV at /dav/ on MAIL_HOST (dav-files.ts); undefined: none. */
  davRoutes?: string;
}

const HEADER = '# Written by `npm run atrium -- install`; run it again rather than editing.\n';

export function caddyfile(o: CaddyfileOptions): string {
  const upstream = `127.0.0.1:${o.atriumPort}`;
  const everyName = o.tls !== undefined && o.tls.covers === undefined;
  const global = [
    o.httpPort ? `\thttp_port ${o.httpPort}` : '',
    o.httpsPort ? `\thttps_port ${o.httpsPort}` : '',
    o.adminOff ? '\tadmin off' : '',
    o.log ? `\tlog {\n\t\toutput file ${o.log} {\n\t\t\troll_size 50MiB\n\t\t\troll_keep 5\n\t\t}\n\t}` : '',
    everyName
      ? '\tauto_https disable_certs'
      : `\ton_demand_tls {\n\t\task http://${upstream}/api/proxy-hosts/check\n\t}`,
  ].filter(Boolean);
  const operatorCert = o.tls ? `\ttls ${o.tls.cert} ${o.tls.key}\n` : '';
  /** A named site's certificate: the operator's where it covers the name, else Caddy's own. */
  const tlsFor = (host: string) =>
    o.tls && (o.tls.covers?.(host) ?? true) ? operatorCert : o.internalTls ? '\ttls internal\n' : '';
  const onDemand = everyName
    ? operatorCert
    : `\ttls${o.internalTls ? ' internal' : ''} {\n\t\ton_demand\n\t}\n`;
  const webmail = o.webmailRoutes ? indent(o.webmailRoutes) : '';
  const dav = o.davRoutes ? indent(o.davRoutes) : '';
  const errors = (withDav: boolean) => indent(errorHandling(withDav && o.davRoutes !== undefined));
  const operator = indent(OPERATOR_ONLY_ON_HOST);
  const mailSite = o.mailHost && o.mailHost !== o.publicHost ? o.mailHost : undefined;
  const sites = o.siteBaseDomain ? `site.${o.siteBaseDomain}` : undefined;
  const wildcard = !everyName && sites && o.tls?.covers?.(sites) ? `*.${o.siteBaseDomain}` : undefined;
  return `${HEADER}{
${global.join('\n')}
}

# The console and the identity provider.
${o.publicHost} {
${tlsFor(o.publicHost)}${operator}${mailSite ? '' : dav}${errors(!mailSite)}\treverse_proxy ${upstream}
}
${
  mailSite
    ? `
# The mail host: devices' calendars and contacts, and the certificate Postfix and Dovecot serve.
${mailSite} {
${tlsFor(mailSite)}${operator}${dav}${errors(true)}\treverse_proxy ${upstream}
}
`
    : ''
}${
    wildcard
      ? `
# Organisations' sites, with the operator's certificate.
${wildcard} {
${operatorCert}${operator}${webmail}${errors(false)}\treverse_proxy ${upstream}
}
`
      : ''
  }
# Organisations' sites and own domains; Caddy asks Atrium before each new certificate.
https:// {
${onDemand}${operator}${mailSite ? '' : dav}${webmail}${errors(!mailSite)}\treverse_proxy ${upstream}
}
`;
}

/**
 * A site's one error handler (Caddy runs only the first handle_errors block of a site). Atrium
 * away (a restart, an update on the embedded database): browsers, apps and devices get a 503 with
 * Retry-After, a temporary answer they wait out, instead of a bare 502; a DAV client is not told
 * its password is wrong. `withDav`: /dav/'s body limit too (dav-files.ts).
 */
function errorHandling(withDav: boolean): string {
  return [
    'handle_errors {',
    ...(withDav ? DAV_ERROR_LINES.map((line) => `\t${line}`) : []),
    '\t@atrium-away expression `{http.error.status_code} in [502, 504]`',
    '\theader @atrium-away Retry-After 5',
    '\trespond @atrium-away "Atrium is restarting. Try again in a few seconds." 503',
    '}',
    '',
  ].join('\n');
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
