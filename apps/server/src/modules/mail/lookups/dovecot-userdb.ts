import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { planCatalogOf } from '../../subscriptions/plan-catalog.ts';
import { mailboxOf } from './mail-lookups.repository.ts';

/**
 * Services that may open a suspended or invited user's mailbox: delivery (lmtp) keeps accepting
 * their mail, quota-status tells Postfix at RCPT whether that mailbox has room, and the operator's
 * doveadm still reaches it. Every other service (imap, pop3, submission) gets "no such user", so a
 * suspended user is refused even with a token still in hand, and an invited user's mailbox opens
 * only once they have set a password (they become active).
 */
const SERVICES_FOR_SUSPENDED = new Set(['lmtp', 'quota-status', 'doveadm']);

/**
 * Answers Dovecot's userdb lookups, keyed `shared/userdb/<service>/<address>` (mail-config writes
 * the key). The value is JSON: the organisation and mailbox ids that mail-config's mail_home
 * makes the home of, and the plan's quota rule.
 */
export function dovecotUserdb(db: Db, config: Config) {
  const catalog = planCatalogOf(config);
  return async (key: string): Promise<string | null> => {
    const match = /^shared\/userdb\/([a-z0-9-]*)\/(.+)$/.exec(key);
    if (!match) return null;
    const [, service, address] = match;
    const mailbox = await mailboxOf(db, address!.toLowerCase());
    if (!mailbox) return null;
    if (mailbox.status !== 'active' && !SERVICES_FOR_SUSPENDED.has(service!)) return null;
    return JSON.stringify({
      organization: mailbox.organizationId,
      mailbox: mailbox.userId,
      quota_rule: `*:storage=${catalog.planOf(mailbox.planKey).mailboxQuotaMb}M`,
    });
  };
}
