import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { DnsClient } from '../../lib/dns.ts';
import { certificateChecks } from './certificate-checks.ts';
import type { Check } from './check.ts';
import { databaseChecks } from './database-checks.ts';
import { diskChecks } from './disk-checks.ts';
import { domainChecks } from './domain-checks.ts';
import { mailContactChecks } from './mail-contact-checks.ts';
import { publicUrlTarget } from './public-url-target.ts';

export interface ServerCheckDeps {
  db: Db;
  config: Config;
  dns: DnsClient;
  /** `/` on a host; the init scripts below DIR for a host installed with `--root DIR`. */
  root?: string;
}

/**
 * The checks that need Atrium's database or settings, and no more privilege than the service
 * user has: the operator status endpoint answers these, and `doctor` takes them from it (the
 * embedded database belongs to the running server). The mail checks apply when mail is set up.
 */
export async function serverChecks(deps: ServerCheckDeps): Promise<Check[]> {
  const { config } = deps;
  const mailConfigured = Boolean(config.mail.socketmap && config.mail.dictSocket);
  return [
    ...databaseChecks(deps),
    ...(mailConfigured ? mailContactChecks(deps) : []),
    ...(await domainChecks(deps)),
    ...diskChecks([{ label: 'DATA_DIR', path: config.dataDir }]),
    ...(config.publicUrl.protocol === 'https:'
      ? certificateChecks([publicUrlTarget(config, deps.root)], { dns: dnsIfConfigured(deps) })
      : []),
  ];
}

/** The names resolve as Atrium's own lookups do: through DNS_SERVERS when set, else the system. */
function dnsIfConfigured(deps: ServerCheckDeps): DnsClient | undefined {
  return deps.config.dnsServers.length > 0 ? deps.dns : undefined;
}

export { publicUrlTarget };
