import { noInvitationAddress } from '@atrium/contracts/users';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { isMailDomain } from '../mail/lookups/mail-lookups.repository.ts';

/**
 * Where an invitation can reach the person (issue 42 item 1, docs/users.md "Invitations").
 *
 * An invited user's own address is not a way to reach them once Atrium hosts its domain's mail:
 * the message lands in their Atrium mailbox, which nobody can open before the invitation is used
 * (IMAP needs a password or an app password, and those need a signed-in user). Atrium's own mail
 * leaves through the local Postfix, which keeps mail for its verified domains here whatever the
 * domain's MX says, so "hosted here" is: Postfix asks Atrium (MAIL_SOCKETMAP_ADDRESS is set) and
 * the domain is verified. Elsewhere (no mail part here, or an evaluation install's unverified
 * domain) the own address is still the old provider's mailbox, which the person reads today.
 */
export function mailHostedHere(config: Config): boolean {
  return config.mail.socketmap !== undefined;
}

export async function ownAddressReachable(db: Db, config: Config, email: string): Promise<boolean> {
  if (!mailHostedHere(config)) return true;
  return !(await isMailDomain(db, email.slice(email.lastIndexOf('@') + 1)));
}

/** The personal address when there is one, else the own address when it reaches the person, else null. */
export async function invitationAddress(
  db: Db,
  config: Config,
  user: { email: string; personalEmail: string | null },
): Promise<string | null> {
  if (user.personalEmail) return user.personalEmail;
  return (await ownAddressReachable(db, config, user.email)) ? user.email : null;
}

/** The refusal of "E-mail an invitation" when no address reaches the person. */
export function noInvitationAddressError(email: string, field?: string): AppError {
  return new AppError(
    409,
    'no_invitation_address',
    noInvitationAddress(email),
    field ? { [field]: noInvitationAddress(email) } : undefined,
  );
}
