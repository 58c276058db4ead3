import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { DbOrTrx } from '../../db/database.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import type { SessionPrincipal } from '../auth/sessions/sessions.repository.ts';

/** The signed-in admin acting on their organisation, as every admin route hands it to a service. */
export interface Actor {
  userId: string;
  organizationId: string;
  /** For the activity log. */
  ip: string | null;
  log: FastifyBaseLogger;
}

/** The one way a route names who acts: the session's user and organisation, and where from. */
export function actorOf(request: FastifyRequest): Actor {
  const { userId, organizationId } = principalOf(request);
  return { userId, organizationId, ip: request.ip, log: request.log };
}

/** The signed-in admin as the activity log names them ("First Last"). */
export async function actorLabelOf(
  db: DbOrTrx,
  principal: Pick<SessionPrincipal, 'userId' | 'organizationId'>,
): Promise<{ userId: string; label: string }> {
  const user = await db
    .selectFrom('users')
    .select(['first_name', 'last_name', 'email'])
    .where('id', '=', principal.userId)
    .where('organization_id', '=', principal.organizationId)
    .executeTakeFirst();
  const label = user ? `${user.first_name} ${user.last_name}`.trim() || user.email : 'Unknown user';
  return { userId: principal.userId, label };
}
