import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { notifyAdmins } from '../notifications/notify.ts';
import { planCatalogOf } from '../subscriptions/plan-catalog.ts';
import {
  countRecipients,
  firstHoldInWindow,
  senderByLogin,
  type SendingScope,
} from './sending-limits.repository.ts';

// Outbound limits (issue 44 item 4): Postfix's submission asks Atrium's policy service at the end
// of each message (smtpd_end_of_data_restrictions), when the recipient count is known. A message
// that would take its sender or their organisation past the plan's recipients per hour is held
// with a 4xx (the mail app keeps it in its outbox and tries again later); the admins are told
// once per window, not once per held message.

export const DUNNO = 'DUNNO';

/** Thrown inside the counting transaction to roll back the first scope's count. */
class OverLimit extends Error {
  readonly scope: SendingScope;
  constructor(scope: SendingScope) {
    super(scope);
    this.scope = scope;
  }
}

const fmt = (n: number) => n.toLocaleString('en-GB');

export interface SendingRequest {
  login: string;
  recipients: number;
}

/** The policy answer (access(5) action) for one submitted message. */
export async function checkSending(
  deps: { db: Db; config: Config; log: FastifyBaseLogger },
  request: SendingRequest,
): Promise<string> {
  const { db } = deps;
  const sender = await senderByLogin(db, request.login);
  // Not a user of this deployment (Atrium's own relay is not asked): nothing to count.
  if (!sender) return DUNNO;
  const plan = planCatalogOf(deps.config).planOf(sender.plan_key ?? '');
  const limits: Record<SendingScope, number> = {
    user: plan.sendPerUserPerHour,
    organization: plan.sendPerOrganizationPerHour,
  };
  const n = Math.max(1, request.recipients);
  if (n > limits.user) {
    return `552 5.5.3 A message may go to at most ${fmt(limits.user)} recipients; send it in parts`;
  }
  try {
    await db.transaction().execute(async (trx) => {
      if (!(await countRecipients(trx, 'user', sender.id, n, limits.user))) throw new OverLimit('user');
      if (!(await countRecipients(trx, 'organization', sender.organization_id, n, limits.organization))) {
        throw new OverLimit('organization');
      }
    });
    return DUNNO;
  } catch (error) {
    if (!(error instanceof OverLimit)) throw error;
    const scope = error.scope;
    const id = scope === 'user' ? sender.id : sender.organization_id;
    await db.transaction().execute(async (trx) => {
      if (!(await firstHoldInWindow(trx, scope, id))) return;
      const name = `${sender.first_name} ${sender.last_name}`.trim() || sender.email;
      await notifyAdmins(
        trx,
        scope === 'user'
          ? {
              organizationId: sender.organization_id,
              kind: 'mail.sending_limit',
              title: `${name} reached the sending limit`,
              body:
                `Mail from ${sender.email} went to ${fmt(limits.user)} recipients within an hour; more is held ` +
                'until the hour is over. If they did not send it, their account may be in someone else’s ' +
                'hands: reset their password and sign them out.',
              link: `/users/${sender.id}`,
            }
          : {
              organizationId: sender.organization_id,
              kind: 'mail.sending_limit',
              title: 'Your organisation reached its sending limit',
              body:
                `Mail from your organisation went to ${fmt(limits.organization)} recipients within an hour; ` +
                `more is held until the hour is over (last: ${sender.email}).`,
              link: '/mail-settings',
            },
      );
    });
    deps.log.warn({ scope, sender: sender.email }, 'sending limit reached: message held');
    const who = scope === 'user' ? 'your' : "your organisation's";
    return `451 4.7.1 Sending limit reached: ${who} mail went to ${fmt(limits[scope])} recipients within the hour; try again later`;
  }
}
