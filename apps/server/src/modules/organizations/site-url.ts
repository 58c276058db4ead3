import type { Config } from '../../config.ts';

/** PRODUCT.md §2: an organisation's site is `https://<site>.<SITE_BASE_DOMAIN>`. */
export function siteUrl(config: Pick<Config, 'siteBaseDomain'>, siteName: string): string {
  return `https://${siteName}.${config.siteBaseDomain}`;
}
