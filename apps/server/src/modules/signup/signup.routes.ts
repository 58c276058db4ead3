import {
  emptyBodySchema,
  signupAccountBodySchema,
  signupEmailBodySchema,
  signupFinishSchema,
  signupSiteBodySchema,
  signupStageBodySchema,
  signupStateSchema,
  signupVerifyBodySchema,
  siteAvailabilityQuerySchema,
  siteAvailabilitySchema,
} from '@atrium/contracts/signup';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { bindTicketToBrowser } from '../auth/sign-in/sign-in-tickets.ts';
import { finishSignup } from './signup-finish.ts';
import { clearedSignupCookieOptions, SIGNUP_COOKIE, signupCookieOptions } from './signup-cookie.ts';
import {
  moveBack,
  requireFlow,
  resendCode,
  signupState,
  siteAvailability,
  stateOf,
  submitCode,
  submitEmail,
  submitSite,
  type SignupDeps,
} from './signup.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const tags = ['signup'];
/** Per client address. The e-mail stage says whether an address is registered, so it is tightest. */
const limits = {
  read: { max: 60, timeWindow: '1 minute' },
  availability: { max: 60, timeWindow: '1 minute' },
  site: { max: 20, timeWindow: '1 minute' },
  email: { max: 10, timeWindow: '1 minute' },
  code: { max: 20, timeWindow: '1 minute' },
  account: { max: 10, timeWindow: '1 minute' },
} as const;

const cookieOf = (request: FastifyRequest) => request.cookies[SIGNUP_COOKIE];

const route = routeOptions({ config: { access: 'public', rateLimit: limits.site }, tags });

/** The sign-up API: public, rate limited, its state on the server. */
export const signupRoutes =
  (deps: SignupDeps): FastifyPluginAsyncZod =>
  async (app) => {
    const refreshCookie = (reply: FastifyReply, token: string) =>
      reply.setCookie(SIGNUP_COOKIE, token, signupCookieOptions(deps.config));

    app.get(
      '/api/signup',
      route(
        'getSignupState',
        "The visitor's sign-up: its stage and what was entered so far (resumes after a reload)",
        { response: { 200: signupStateSchema } },
        { access: 'public', rateLimit: limits.read },
      ),
      async (request) => signupState(deps, cookieOf(request)),
    );

    app.get(
      '/api/signup/site-availability',
      route(
        'checkSiteAvailability',
        'Site validation: is this site name valid, not reserved and free?',
        { querystring: siteAvailabilityQuerySchema, response: { 200: siteAvailabilitySchema } },
        { access: 'public', rateLimit: limits.availability },
      ),
      async (request) => siteAvailability(deps, request.query.siteName),
    );

    app.post(
      '/api/signup/site',
      route('submitSignupSite', 'Stage 1: organisation name and site name; starts the sign-up', {
        body: signupSiteBodySchema,
        response: { 200: signupStateSchema },
      }),
      async (request, reply) => {
        const { token, flow } = await submitSite(deps, cookieOf(request), request.body);
        refreshCookie(reply, token);
        return stateOf(deps, flow);
      },
    );

    app.post(
      '/api/signup/email',
      route(
        'submitSignupEmail',
        "Stage 2 (e-mail validation): the admin's address; e-mails a 6-digit code",
        { body: signupEmailBodySchema, response: { 200: signupStateSchema } },
        { access: 'public', rateLimit: limits.email },
      ),
      async (request, reply) => {
        const token = cookieOf(request);
        const flow = await requireFlow(deps.db, token, 'email');
        const next = await submitEmail(deps, flow, request.body.email);
        refreshCookie(reply, token!);
        return stateOf(deps, next);
      },
    );

    app.post(
      '/api/signup/code/resend',
      route(
        'resendSignupCode',
        'OTP resend: another code, 60 seconds after the last and a few times an hour',
        { body: emptyBodySchema, response: { 200: signupStateSchema } },
        { access: 'public', rateLimit: limits.code },
      ),
      async (request) => {
        const flow = await requireFlow(deps.db, cookieOf(request), 'verify');
        await resendCode(deps, flow);
        return stateOf(deps, flow);
      },
    );

    app.post(
      '/api/signup/verify',
      route(
        'verifySignupCode',
        'Stage 3 (e-mail verification, stage verify): the code from the e-mail',
        { body: signupVerifyBodySchema, response: { 200: signupStateSchema } },
        { access: 'public', rateLimit: limits.code },
      ),
      async (request, reply) => {
        const token = cookieOf(request);
        const flow = await requireFlow(deps.db, token, 'verify');
        const next = await submitCode(deps, flow, request.body.code);
        refreshCookie(reply, token!);
        return stateOf(deps, next);
      },
    );

    app.post(
      '/api/signup/stage',
      route(
        'updateSignupStage',
        'Stage update: go back to an earlier stage, e.g. to change the e-mail address',
        { body: signupStageBodySchema, response: { 200: signupStateSchema } },
      ),
      async (request) => {
        const flow = await requireFlow(deps.db, cookieOf(request), 'site');
        return stateOf(deps, await moveBack(deps, flow, request.body.stage));
      },
    );

    app.post(
      '/api/signup/account',
      route(
        'createSignupAccount',
        'Stage 4: the admin account; creates the organisation and answers where to sign in (single sign-on)',
        { body: signupAccountBodySchema, response: { 200: signupFinishSchema } },
        { access: 'public', rateLimit: limits.account },
      ),
      async (request, reply) => {
        const flow = await requireFlow(deps.db, cookieOf(request), 'account');
        const result = await finishSignup(deps, flow, request.body, request.ip);
        // The new site's DNS record (with DNS_UPDATE_SERVER) is queued: publish it now.
        app.jobs.wake();
        reply.clearCookie(SIGNUP_COOKIE, clearedSignupCookieOptions(deps.config));
        bindTicketToBrowser(reply, deps.config, result.redirectTo);
        return result;
      },
    );
  };
