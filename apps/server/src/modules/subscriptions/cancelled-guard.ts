import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/database.ts';
import { findSubscription } from './subscriptions.repository.ts';
import { subscriptionCancelled } from './subscription-limits.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * An admin request that stays possible while the subscription is cancelled: choosing a plan,
     * and a POST that writes nothing (the user import's dry run).
     */
    allowedWhileCancelled?: boolean;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * While an organisation's subscription is cancelled its admins may read and export, and change
 * the plan, but change nothing else. Runs after the auth guard (registered after it), on admin
 * routes only: users keep signing in, reading their notifications and managing their own profile.
 */
export function registerCancelledGuard(app: FastifyInstance, db: Db): void {
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config.access !== 'admin' || SAFE_METHODS.has(request.method) || config.allowedWhileCancelled) return;
    if (!request.principal) return;
    const subscription = await findSubscription(db, request.principal.organizationId);
    if (subscription?.status === 'cancelled') throw subscriptionCancelled();
  });
}
