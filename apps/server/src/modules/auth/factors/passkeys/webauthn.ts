import type { Config } from '../../../../config.ts';

/**
 * The relying party of passkeys follows PUBLIC_URL: its host name is the RP ID (a passkey works
 * only there and on its subdomains), and answers must come from its origin exactly.
 */
export function relyingParty(config: Config): { rpID: string; origin: string } {
  return { rpID: config.publicUrl.hostname, origin: config.publicUrl.origin };
}

/**
 * RFC 8176 names a synced passkey apart from one bound to its device: a backup-eligible
 * credential can leave the device (password managers copy it), so it is a software key (`swk`);
 * one that cannot is a hardware-bound key (`hwk`).
 */
export const keyKindOf = (backupEligible: boolean): 'hwk' | 'swk' => (backupEligible ? 'swk' : 'hwk');
