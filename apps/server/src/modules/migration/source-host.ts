import { AddressRefused, HostNotFound, resolveAllowed } from '../../lib/network-policy.ts';

/**
 * The old provider's server is named by an admin: without a guard, a migration could make Atrium
 * connect to its own host or network (loopback, this host's addresses, private ranges, cloud
 * metadata). The address policy (lib/network-policy.ts) refuses them, in every spelling, unless
 * the operator sets MIGRATION_PRIVATE_HOSTS=true (tests; a provider on the LAN); addresses no
 * real server has (documentation, link-local, multicast, reserved) are refused always.
 */
export class SourceHostProblem extends Error {}

/**
 * The address to connect to for `host`: checked when the migration starts and again when its job
 * connects. Every address a name resolves to must pass (a name that resolves to one refused
 * address is refused), and the job connects to the address checked, not to the name again (no
 * second lookup that could answer differently).
 */
export async function resolveSourceHost(host: string, allowPrivate: boolean): Promise<string> {
  try {
    return (await resolveAllowed(host, { allowPrivate })).address;
  } catch (error) {
    if (error instanceof HostNotFound) {
      throw new SourceHostProblem(`The old provider’s server ${host} was not found. Check its name.`);
    }
    if (error instanceof AddressRefused) {
      const setting = error.privateNetwork
        ? ' (The operator can allow servers on Atrium’s own host or network with MIGRATION_PRIVATE_HOSTS=true.)'
        : '';
      throw new SourceHostProblem(
        `The old provider’s server ${error.message}, which Atrium does not connect to.${setting}`,
      );
    }
    throw error;
  }
}
