import path from 'node:path';
import type { RspamdOptions } from '../../modules/mail/config/rspamd-config.ts';
import { isRspamdSecretFile, rspamdControllerPassword } from '../../modules/mail/config/rspamd-config.ts';
import type { HostLayout } from '../host-layout.ts';
import type { HostItem } from './host-changes.ts';
import type { InstallOptions } from './install-options.ts';

/**
 * Debian's rspamd reads /etc/rspamd/rspamd.conf, which includes local.d/ and override.d/ (and
 * rspamd.conf.override); Debian's package puts nothing there, so install owns those files.
 */
export const rspamdDir = (layout: HostLayout) => path.join(layout.root, 'etc/rspamd');

/**
 * Where rspamd logs, keeps its data and its pid file: Debian's defaults on a host, below the root
 * under --root (the tests start it with these as --var).
 */
export const rspamdPaths = (layout: HostLayout) => ({
  log: path.join(layout.root, 'var/log/rspamd/rspamd.log'),
  db: path.join(layout.root, 'var/lib/rspamd'),
  run: path.join(layout.root, 'run/rspamd'),
});

/**
 * rspamd's part of mail-config on an installed host: its milter and controller on loopback,
 * Debian's redis-server (its own service, 127.0.0.1:6379 unless --redis-port says otherwise) and
 * the controller's password derived from ATRIUM_SECRET. rspamd asks the host's resolvers
 * (/etc/resolv.conf), not DNS_SERVERS: that setting is Atrium's own, changed without install.
 */
export function installRspamdOptions(o: InstallOptions, config: { secret: string }): RspamdOptions {
  return {
    port: o.ports.rspamd,
    controllerPort: o.ports.rspamdController,
    redis: { host: '127.0.0.1', port: o.ports.redis },
    controllerPassword: rspamdControllerPassword(config.secret),
  };
}

/**
 * One of mail-config's `rspamd/…` files as install leaves it: root's, readable by everyone, except
 * the controller's (its password), which only root and rspamd's group read. A change restarts
 * rspamd (`systemctl restart rspamd`; a reload would do, but the init script has none).
 */
export function rspamdItem(layout: HostLayout, name: string, content: string): HostItem {
  const secret = isRspamdSecretFile(name);
  return {
    kind: 'file',
    path: path.join(rspamdDir(layout), name.slice('rspamd/'.length)),
    content,
    owner: 'root',
    group: secret ? '_rspamd' : 'root',
    mode: secret ? 0o640 : 0o644,
    affects: ['rspamd'],
  };
}
