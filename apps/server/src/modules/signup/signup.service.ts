import type { SignupState, SignupStage, SiteAvailability } from '@atrium/contracts/signup';
import { EMAIL_REGISTERED, SIGNUP_STAGES, SITE_NAME_TAKEN, siteNameProblem } from '@atrium/contracts/signup';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';
import { AppError, fieldError } from '../../lib/errors.ts';
import type { Mailer } from '../../lib/mail.ts';
import { siteNameDnsProblem } from '../dns-updates/site-name-check.ts';
import { siteUrl } from '../organizations/site-url.ts';
import { signupCodeStatus, sendSignupCode, verifySignupCode } from './signup-code.ts';
import {
  deleteExpiredFlows,
  findLiveFlow,
  insertFlow,
  isEmailRegistered,
  isSiteNameTaken,
  updateFlow,
  type SignupFlow,
} from './signup.repository.ts';

export interface SignupDeps {
  db: Db;
  config: Config;
  mailer: Mailer;
  log?: FastifyBaseLogger;
}

const stageIndex = (stage: SignupStage) => SIGNUP_STAGES.indexOf(stage);

/** A request that needs a flow which has reached `stage`; otherwise the visitor starts over. */
export async function requireFlow(
  db: Db,
  token: string | undefined,
  stage: SignupStage,
): Promise<SignupFlow> {
  const flow = token ? await findLiveFlow(db, sha256(token)) : undefined;
  if (!flow) {
    throw new AppError(409, 'signup_expired', 'Your sign-up has expired. Start again with your site name.');
  }
  if (stageIndex(flow.stage) < stageIndex(stage)) {
    throw new AppError(409, 'signup_stage', 'Finish the earlier steps of the sign-up first.');
  }
  return flow;
}

export async function signupState(deps: SignupDeps, token: string | undefined): Promise<SignupState> {
  const flow = token ? await findLiveFlow(deps.db, sha256(token)) : undefined;
  return stateOf(deps, flow);
}

export async function stateOf(deps: SignupDeps, flow: SignupFlow | undefined): Promise<SignupState> {
  const code = flow?.email && flow.stage === 'verify' ? await signupCodeStatus(deps.db, flow) : null;
  return {
    stage: flow?.stage ?? 'site',
    organizationName: flow?.organizationName ?? null,
    siteName: flow?.siteName ?? null,
    siteUrl: flow?.siteName ? siteUrl(deps.config, flow.siteName) : null,
    siteBaseDomain: deps.config.siteBaseDomain,
    email: flow?.email ?? null,
    codeExpiresAt: code?.expiresAt.toISOString() ?? null,
    resendAvailableAt: code?.resendAvailableAt.toISOString() ?? null,
  };
}

/** "site validation": the live check the site stage makes while the visitor types. */
export async function siteAvailability(deps: SignupDeps, raw: string): Promise<SiteAvailability> {
  const siteName = raw.trim();
  const problem = siteNameProblem(siteName);
  const message = problem ?? (await siteNameUnavailable(deps, siteName));
  return {
    siteName,
    available: message === null,
    message,
    siteUrl: problem ? null : siteUrl(deps.config, siteName),
  };
}

/**
 * Why a well-formed site name cannot be had, or null: another organisation has it, a host of the
 * deployment has it, or (with DNS_UPDATE_SERVER) the operator's zone already has that name.
 */
async function siteNameUnavailable(deps: SignupDeps, siteName: string): Promise<string | null> {
  if (await isSiteNameTaken(deps.db, siteName)) return SITE_NAME_TAKEN;
  return siteNameDnsProblem(deps.config, siteName, deps.log);
}

/**
 * Stage 1. Starts a flow (a new cookie token) or changes an existing one. The name is not held:
 * the finishing transaction decides who gets it, so two visitors can both reach the last stage.
 */
export async function submitSite(
  deps: SignupDeps,
  token: string | undefined,
  input: { organizationName: string; siteName: string },
): Promise<{ token: string; flow: SignupFlow }> {
  const unavailable = await siteNameUnavailable(deps, input.siteName);
  if (unavailable) throw fieldError('siteName', unavailable);
  const existing = token ? await findLiveFlow(deps.db, sha256(token)) : undefined;
  if (existing && token) {
    // Coming back to change the site keeps a verified address: straight on to the account.
    const stage = existing.emailVerifiedAt ? 'account' : 'email';
    await updateFlow(deps.db, existing.id, { ...input, stage });
    return { token, flow: { ...existing, ...input, stage } };
  }
  await deleteExpiredFlows(deps.db);
  const fresh = randomToken();
  const flow: SignupFlow = {
    id: sha256(fresh),
    stage: 'email',
    organizationName: input.organizationName,
    siteName: input.siteName,
    email: null,
    emailVerifiedAt: null,
  };
  await insertFlow(deps.db, { id: flow.id, stage: 'email', ...input });
  return { token: fresh, flow };
}

/**
 * Stage 2, "e-mail validation". Sign-up refuses an address that is already
 * registered, which tells the visitor that it exists: an accepted enumeration surface, held
 * down by the route's per-address rate limit and by needing a flow first.
 */
export async function submitEmail(deps: SignupDeps, flow: SignupFlow, email: string): Promise<SignupFlow> {
  const address = email.toLowerCase();
  if (await isEmailRegistered(deps.db, address)) throw fieldError('email', EMAIL_REGISTERED);
  if (flow.email === address && flow.emailVerifiedAt) {
    await updateFlow(deps.db, flow.id, { stage: 'account' });
    return { ...flow, stage: 'account' };
  }
  // A new address needs a new proof; a live code for the same address is kept (no resend spam).
  const status = flow.email === address ? await signupCodeStatus(deps.db, flow) : null;
  const next: SignupFlow = { ...flow, email: address, emailVerifiedAt: null, stage: 'verify' };
  if (!status?.live) await sendSignupCode(deps, next);
  await updateFlow(deps.db, flow.id, { email: address, emailVerifiedAt: null, stage: 'verify' });
  return next;
}

/** "OTP resend": another code, within the code rules (60 s apart, 5 an hour). */
export async function resendCode(deps: SignupDeps, flow: SignupFlow): Promise<void> {
  if (flow.stage !== 'verify' || !flow.email) {
    throw new AppError(409, 'signup_stage', 'There is no code to re-send at this step.');
  }
  await sendSignupCode(deps, flow);
}

/** Stage 3, "e-mail verification". */
export async function submitCode(deps: SignupDeps, flow: SignupFlow, code: string): Promise<SignupFlow> {
  if (flow.stage !== 'verify' || !flow.email) {
    throw new AppError(409, 'signup_stage', 'There is no code to check at this step.');
  }
  await verifySignupCode(deps, flow, code);
  const verifiedAt = new Date();
  await updateFlow(deps.db, flow.id, { emailVerifiedAt: verifiedAt, stage: 'account' });
  return { ...flow, emailVerifiedAt: verifiedAt, stage: 'account' };
}

/** "stage update": back to an earlier stage (change the site or the address). Never forward. */
export async function moveBack(deps: SignupDeps, flow: SignupFlow, stage: SignupStage): Promise<SignupFlow> {
  if (stageIndex(stage) > stageIndex(flow.stage)) {
    throw fieldError('stage', 'Finish the current step before going on');
  }
  await updateFlow(deps.db, flow.id, { stage });
  return { ...flow, stage };
}
