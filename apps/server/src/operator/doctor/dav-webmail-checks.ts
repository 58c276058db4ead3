import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import type { Settings } from '../settings-file.ts';
import { caddyCommand } from './caddy-checks.ts';
import { fail, pass, type Check } from './check.ts';
import { connects, httpAnswer, loopbackOf } from './probes.ts';
import { serviceCommand, serviceLog } from './service-commands.ts';

/** The socket of install's PHP-FPM pool for Roundcube (webmail-files.ts). */
export const webmailSocket = (layout: HostLayout) => path.join(layout.root, 'run/php/atrium-webmail.sock');

/**
 * Radicale's start: its service on a host (Debian's init script or unit read /etc/radicale/config);
 * under --root the daemon with the configuration install wrote below DIR, as user radicale, where
 * DAV_RADICALE_ADDRESS says (several hosts on one machine).
 */
function radicaleStart(layout: HostLayout, address: string): string {
  if (layout.root === '/') return serviceCommand('/', 'radicale', 'start');
  const pidFile = path.join(layout.root, 'run/radicale.pid');
  return `start-stop-daemon --start --background --make-pidfile --pidfile ${pidFile} --chuid radicale:radicale --startas /usr/bin/radicale -- --config ${layout.radicaleConfig} --server-hosts ${address}`;
}

/** PHP-FPM's start: Debian's php8.2-fpm service; under --root the master with DIR's php-fpm.conf. */
function phpFpmStart(layout: HostLayout): string {
  if (layout.root === '/') return serviceCommand('/', 'php8.2-fpm', 'start');
  return `/usr/sbin/php-fpm8.2 --fpm-config ${path.join(layout.root, 'etc/php/8.2/fpm/php-fpm.conf')}`;
}

/**
 * Calendars and contacts: Radicale answering at DAV_RADICALE_ADDRESS, and https://MAIL_HOST/dav/
 * answering through Caddy as a device sees it before signing in (401 from Atrium's forward_auth,
 * not 502 or a refused connection).
 */
export function davChecks(layout: HostLayout, settings: Settings): Check[] {
  const radicale = settings.DAV_RADICALE_ADDRESS;
  const mailHost = settings.MAIL_HOST;
  if (!radicale || !mailHost) return [];
  const [radicaleHost, radicalePort] = splitAddress(radicale);
  const httpsPort = Number(settings.ATRIUM_INSTALL_HTTPS_PORT ?? 443);
  const address = loopbackOf(settings.ATRIUM_INSTALL_LISTEN);
  const url = `https://${mailHost}${httpsPort === 443 ? '' : `:${httpsPort}`}/dav/`;
  return [
    {
      name: 'Radicale answering',
      async run() {
        const answer = await httpAnswer({
          tls: false,
          address: radicaleHost,
          port: radicalePort,
          host: radicale,
          method: 'OPTIONS',
          path: '/',
        });
        if (answer.ok && answer.status < 500) return pass(`answers at ${radicale} (HTTP ${answer.status})`);
        return fail(
          `Radicale does not answer at ${radicale} (${answer.ok ? `HTTP ${answer.status}` : answer.code}): calendars and contacts at ${url} answer 502`,
          radicaleStart(layout, radicale),
        );
      },
    },
    {
      name: 'Calendars and contacts (/dav/)',
      async run() {
        const answer = await httpAnswer({
          tls: true,
          address,
          port: httpsPort,
          host: `${mailHost}${httpsPort === 443 ? '' : `:${httpsPort}`}`,
          method: 'PROPFIND',
          path: '/dav/',
          headers: { depth: '0' },
        });
        if (!answer.ok) {
          return fail(
            `${url}: Caddy does not answer on ${address}:${httpsPort} (${answer.code})`,
            caddyCommand(layout, 'start'),
          );
        }
        if (answer.status === 401) return pass(`${url} asks a device to sign in (401), through Caddy`);
        if (answer.status >= 500) {
          return fail(
            `${url} answers ${answer.status} before sign-in: Caddy cannot ask Atrium (forward_auth)`,
            `${serviceCommand(layout.root, 'atrium', 'start')}; if it stops again, ${serviceLog(layout.root, 'atrium')}`,
          );
        }
        return fail(
          `${url} answers ${answer.status} instead of asking to sign in (401): Caddy's configuration has no /dav/ route for ${mailHost}`,
          `npm run atrium -- install${layout.root === '/' ? '' : ` --root ${layout.root}`}; ${caddyCommand(layout, 'reload')}`,
        );
      },
    },
  ];
}

/** PHP-FPM's pool for Roundcube accepting connections on its socket (Caddy's php_fastcgi). */
export function webmailChecks(layout: HostLayout): Check[] {
  const socket = webmailSocket(layout);
  return [
    {
      name: 'PHP-FPM (webmail)',
      async run() {
        const answer = await connects({ path: socket });
        if (answer.ok) return pass(`the atrium-webmail pool answers on ${socket}`);
        return fail(
          `nothing answers on ${socket} (${answer.code}): webmail answers 502`,
          phpFpmStart(layout),
        );
      },
    },
  ];
}

function splitAddress(address: string): [string, number] {
  const at = address.lastIndexOf(':');
  return [address.slice(0, at).replace(/^\[|\]$/g, ''), Number(address.slice(at + 1))];
}
