import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { AppError } from '../../../lib/errors.ts';
import { authenticationOf, type SignInMethod } from '../../../oidc/authentication-methods.ts';

export type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>;

const expired = () =>
  new AppError(410, 'interaction_expired', 'This sign-in page has expired. Start signing in again.');

/** What the sign-in endpoints share: the interaction of the request, its app, and finishing it. */
export function interactionHelpers(provider: Provider) {
  async function details(request: FastifyRequest, reply: FastifyReply, uid: string) {
    const found = await provider.interactionDetails(request.raw, reply.raw).catch(() => undefined);
    if (!found || found.uid !== uid) throw expired();
    return found;
  }

  /** Ends the login with what was used to sign in, which the ID token tells as amr and acr. */
  async function finish(
    request: FastifyRequest,
    reply: FastifyReply,
    accountId: string,
    method: SignInMethod,
  ): Promise<string> {
    return provider.interactionResult(
      request.raw,
      reply.raw,
      { login: { accountId, ...authenticationOf(method), remember: true } },
      { mergeWithLastSubmission: false },
    );
  }

  async function clientName(clientId: unknown): Promise<string> {
    const client = typeof clientId === 'string' ? await provider.Client.find(clientId) : undefined;
    return client?.clientName ?? 'Atrium';
  }

  return { details, finish, clientName };
}
