import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import {
  interactionState,
  redirectResponse,
  resendResponse,
  signInCodeBody,
  signInPasswordBody,
  type InteractionState,
} from '@atrium/contracts/auth';
import { requestsStrongSignIn } from '../../../oidc/authentication-methods.ts';
import { checkClientAccess } from '../../../oidc/client-access.ts';
import { AppError } from '../../../lib/errors.ts';
import { findLatestCode } from './codes/email-codes.ts';
import { AddressFailureBudget } from './address-failures.ts';
import {
  DEVICE_COOKIE,
  deviceHashOf,
  deviceTokenOf,
  isKnownDevice,
  keepDeviceCookie,
  rememberDevice,
} from './known-devices.ts';
import {
  checkPasswordAndSendCode,
  checkSignInCode,
  completeSignIn,
  resendSignInCode,
  type SignInDeps,
} from './sign-in.service.ts';
import { findEnrolmentStage, finishOrEnrol } from './sign-in-enrolment.ts';
import { emailCodeRefused, offersFor } from './sign-in-offers.ts';
import { useTrustedBrowser } from '../factors/trusted-browsers/trusted-browsers.ts';
import { consumeSignInTicket } from './sign-in-tickets.ts';
import { readTransaction } from '../console-client/sso-transaction.ts';
import { interactionHelpers } from './interaction-helpers.ts';
import { findSecondFactor } from './sign-in-progress.ts';
import { findCodeStep } from './sign-in.repository.ts';
import { strongestOf, strongFactorsOf } from '../factors/strong-factors.ts';
import { routeOptions } from '../../../plugins/route-options.ts';

const params = z.object({ uid: z.string().min(1).max(100) });
const tags = ['sign-in'];
/**
 * Per-address limits on the public sign-in endpoints (docs/sign-in.md). The steps of a sign-in
 * take 120 requests a minute an address, so an office behind one address signs in at 9:00
 * (issue 30: 20 refused the 21st); wrong passwords and codes are what a guesser spends, and
 * those stay at 20 a minute an address (address-failures.ts) besides the per-account rules
 * (throttle.ts). Sending codes again keeps the tighter limit.
 */
const steps = { max: 120, timeWindow: '1 minute' };
const tight = { max: 20, timeWindow: '1 minute' };

const route = routeOptions({ config: { access: 'public', rateLimit: tight }, tags });

/**
 * The provider's login interaction as JSON endpoints for the console's /login page. Each call
 * is bound to the browser by the provider's interaction cookie, whose path is
 * /api/interactions/<uid>; a cross-site POST never carries it (SameSite=Lax).
 */
export const interactionsRoutes =
  (deps: SignInDeps & { provider: Provider }): FastifyPluginAsyncZod =>
  async (app) => {
    const { provider, db } = deps;
    const budget = new AddressFailureBudget();
    const helpers = interactionHelpers(provider);
    const { details, clientName } = helpers;

    /**
     * A sign-in ticket (sign-up, invitation, right after a reset by link) stands in for password
     * and code: the sign-in finishes at once, and the browser is remembered without a "new
     * sign-in" e-mail. Returns where to go next, or undefined without a usable ticket.
     */
    async function finishWithTicket(
      request: FastifyRequest,
      reply: FastifyReply,
      interaction: Awaited<ReturnType<Provider['interactionDetails']>>,
    ): Promise<string | undefined> {
      const ticket = readTransaction(request, deps.config)?.ticket;
      if (!ticket || interaction.prompt.name !== 'login') return undefined;
      const userId = await consumeSignInTicket(db, ticket);
      if (!userId) return undefined;
      // A ticket stands in for password and e-mail; an account with a passkey or an authenticator
      // app still signs in at /login with it, or it would be skipped (after a reset by link).
      if (strongestOf(await strongFactorsOf(db, userId))) return undefined;
      const device = deviceTokenOf(request);
      await rememberDevice(db, userId, device);
      keepDeviceCookie(reply, deps.config, device);
      // An organisation requiring a strong factor holds the sign-in at its enrolment on /login.
      return finishOrEnrol(db, helpers, request, reply, { uid: interaction.uid, userId, method: 'ticket' });
    }

    // Where the provider sends a browser already signed in, or one with a sign-in ticket (the
    // others go straight to /login, see oidc/straight-to-login.ts): on to /login, to the access
    // page when the app is closed to them, or straight back with the ticket.
    app.get(
      '/api/interactions/:uid',
      route('startInteraction', 'Opens the sign-in page', { params }, { access: 'public', rateLimit: steps }),
      async (request, reply) => {
        const { uid } = request.params;
        const pending = await provider.interactionDetails(request.raw, reply.raw).catch(() => undefined);
        if (pending?.uid === uid) {
          const next = await finishWithTicket(request, reply, pending);
          if (next) return reply.redirect(next, 303);
          // A signed-in user the app is closed to (another organisation, or outside the app's
          // groups): the console's access page; the interaction stays unfinished, so no code is issued.
          const accountId = pending.prompt.name !== 'login' ? pending.session?.accountId : undefined;
          if (accountId) {
            const access = await checkClientAccess(db, {
              userId: accountId,
              clientId: String(pending.params.client_id),
            });
            if (!access.allowed) {
              return reply.redirect(`/access-denied?${new URLSearchParams({ app: access.appName })}`, 303);
            }
          }
        }
        return reply.redirect(`/login?uid=${encodeURIComponent(uid)}`, 303);
      },
    );

    app.get(
      '/api/interactions/:uid/state',
      route(
        'getInteractionState',
        'Where this sign-in stands: password, code, access denied, or done',
        { params, response: { 200: interactionState } },
        { access: 'public', rateLimit: { max: 240, timeWindow: '1 minute' } },
      ),
      async (request, reply): Promise<InteractionState> => {
        const interaction = await details(request, reply, request.params.uid);
        const accountId = interaction.session?.accountId;
        const clientId = interaction.params.client_id as string;
        if (interaction.prompt.name !== 'login' && accountId) {
          // Signed in, but the provider asks for consent: only when the app is closed to this user.
          const access = await checkClientAccess(db, { userId: accountId, clientId });
          if (!access.allowed) return { stage: 'denied', appName: access.appName };
          const grant = new provider.Grant({ clientId, accountId });
          grant.addOIDCScope(String(interaction.params.scope ?? 'openid'));
          const grantId = await grant.save();
          const redirectTo = await provider.interactionResult(request.raw, reply.raw, {
            consent: { grantId },
          });
          return { stage: 'continue', redirectTo };
        }
        const name = await clientName(clientId);
        const enrolling = await findEnrolmentStage(db, interaction.uid);
        if (enrolling) return { stage: 'enrol', clientName: name, email: enrolling.email };
        const progress = await findSecondFactor(db, interaction.uid);
        if (progress && progress.factor !== 'email') {
          return {
            stage: progress.factor,
            clientName: name,
            email: progress.identifier,
            ...(await offersFor(db, progress, progress.factor, interaction.params)),
          };
        }
        const latest = await findLatestCode(db, { purpose: 'sign-in', context: interaction.uid });
        if (!latest) return { stage: 'password', clientName: name };
        const offers = await offersFor(db, { email: latest.identifier }, 'email', interaction.params);
        return {
          stage: 'code',
          clientName: name,
          email: latest.identifier,
          resendAvailableAt: latest.resendAvailableAt.toISOString(),
          codeSent: latest.mailSent,
          canTrustBrowser: offers.canTrustBrowser,
          ...(progress ? { otherWays: offers.otherWays } : {}),
        };
      },
    );

    app.post(
      '/api/interactions/:uid/password',
      route(
        'submitSignInPassword',
        'Checks e-mail and password, then e-mails a 6-digit code or asks for the authenticator app',
        { params, body: signInPasswordBody, response: { 200: interactionState } },
        { access: 'public', rateLimit: steps },
      ),
      async (request, reply): Promise<InteractionState> => {
        const interaction = await details(request, reply, request.params.uid);
        const device = deviceTokenOf(request);
        // A trusted browser (issue 17 item 6) skips the second factor, unless the app asks for a
        // strong sign-in; only a browser that already has its device cookie can be trusted.
        const mayBeTrusted = !!request.cookies[DEVICE_COOKIE] && !requestsStrongSignIn(interaction.params);
        const sent = await checkPasswordAndSendCode(deps, {
          context: interaction.uid,
          email: request.body.email,
          password: request.body.password,
          ip: request.ip,
          deviceHash: deviceHashOf(request),
          budget,
          ...(mayBeTrusted ? { trustedBrowser: (userId) => useTrustedBrowser(db, userId, device) } : {}),
        });
        if (sent.factor === 'trusted') {
          const { userId, facts } = await completeSignIn(deps, {
            context: interaction.uid,
            identifier: sent.email,
            ip: request.ip,
            device: { token: device, userAgent: request.headers['user-agent'] },
            knownDevice: sent.knownDevice,
          });
          keepDeviceCookie(reply, deps.config, device);
          const redirectTo = await finishOrEnrol(db, helpers, request, reply, {
            uid: interaction.uid,
            userId,
            method: 'trusted',
            facts,
          });
          return { stage: 'continue', redirectTo };
        }
        const name = await clientName(interaction.params.client_id);
        if (sent.factor !== 'email') {
          const offers = await offersFor(db, { email: sent.email }, sent.factor, interaction.params, sent);
          return { stage: sent.factor, clientName: name, email: sent.email, ...offers };
        }
        const { canTrustBrowser } = await offersFor(
          db,
          { email: sent.email },
          'email',
          interaction.params,
          sent,
        );
        return {
          stage: 'code',
          clientName: name,
          email: sent.email,
          resendAvailableAt: sent.resendAvailableAt.toISOString(),
          codeSent: sent.codeSent,
          canTrustBrowser,
        };
      },
    );

    app.post(
      '/api/interactions/:uid/code',
      route(
        'submitSignInCode',
        'Checks the e-mailed code and completes the sign-in',
        {
          params,
          body: signInCodeBody,
          response: { 200: redirectResponse },
        },
        { access: 'public', rateLimit: steps },
      ),
      async (request, reply) => {
        const interaction = await details(request, reply, request.params.uid);
        // An account with an app chose the e-mail as another way, and the policy forbids that since.
        // What the step needs before the code is checked, in one statement (sign-in.repository.ts).
        const step = await findCodeStep(db, {
          context: interaction.uid,
          ip: request.ip,
          deviceHash: deviceHashOf(request),
        });
        const pending = step.progress;
        if (pending && (await emailCodeRefused(db, pending.userId, interaction.params))) {
          throw new AppError(400, 'factor_not_allowed', 'This way of signing in is not available here.');
        }
        const device = deviceTokenOf(request);
        const { userId, facts } = await checkSignInCode(deps, {
          step,
          context: interaction.uid,
          code: request.body.code,
          ip: request.ip,
          device: { token: device, userAgent: request.headers['user-agent'] },
          budget,
        });
        keepDeviceCookie(reply, deps.config, device);
        const trust = request.body.trustBrowser ? { token: device } : undefined;
        return {
          redirectTo: await finishOrEnrol(db, helpers, request, reply, {
            uid: interaction.uid,
            userId,
            method: 'email',
            trust,
            facts,
          }),
        };
      },
    );

    app.post(
      '/api/interactions/:uid/resend',
      route('resendSignInCode', 'E-mails a new code (60 s after the last, at most 5 times an hour)', {
        params,
        response: { 200: resendResponse },
      }),
      async (request, reply) => {
        const interaction = await details(request, reply, request.params.uid);
        const deviceHash = deviceHashOf(request);
        const { resendAvailableAt, codeSent } = await resendSignInCode(deps, interaction.uid, (email) =>
          isKnownDevice(db, email, deviceHash),
        );
        return { resendAvailableAt: resendAvailableAt.toISOString(), codeSent };
      },
    );
  };
