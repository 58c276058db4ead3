import type { Config } from '../../config.ts';

/** An organisation's site is `https://<site>.<SITE_BASE_DOMAIN>`. */
export function siteUrl(config: Pick<Config, 'siteBaseDomain'>, siteName: string): string {
  return `https://${siteName}.${config.siteBaseDomain}`;
}
