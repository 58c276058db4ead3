import type { Config } from '../../config.ts';
import { siteUrl } from '../organizations/site-url.ts';

/** Where Caddy serves Roundcube on every host it serves (docs/mail.md, "Roundcube: the Mail app"). */
export const WEBMAIL_PATH = '/webmail';

/**
 * An organisation's webmail on this host: its site host, which Caddy already serves (and
 * `/api/proxy-hosts/check` already answers for), under /webmail. Undefined without
 * WEBMAIL_CONFIG_DIR: Roundcube, if any, is somewhere Atrium does not know.
 */
export function webmailUrl(
  config: Pick<Config, 'siteBaseDomain' | 'webmail'>,
  siteName: string,
): string | undefined {
  return config.webmail ? `${siteUrl(config, siteName)}${WEBMAIL_PATH}` : undefined;
}
