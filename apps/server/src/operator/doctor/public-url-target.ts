import type { Config } from '../../config.ts';
import { serviceLog } from './service-commands.ts';

/** The console's address, where Caddy answers with its certificate. */
export function publicUrlTarget(config: Pick<Config, 'publicUrl'>, root = '/') {
  return {
    host: config.publicUrl.hostname,
    port: Number(config.publicUrl.port || 443),
    protocol: 'https' as const,
    renewedBy: `Caddy renews it: ${serviceLog(root, 'caddy')}`,
  };
}
