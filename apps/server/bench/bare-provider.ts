// The floors of the identity bench on a bare oidc-provider: its code-and-token flow and refresh
// grants, with its in-memory adapter or the simplest one on a database (bare-sql-adapter.ts).
import { verify } from '@node-rs/argon2';
import { inject, type DispatchFunc } from 'light-my-request';
import Provider, { type Adapter, type Configuration } from 'oidc-provider';
import { client, location, pkce, tokenRequest, type Send } from './identity-browser.ts';
import { rate } from './operation-rate.ts';

export interface BareFlowOptions {
  /** The password of `passwordHash`, when the login step checks one. */
  password: string;
  redirect: string;
  seconds: number;
  concurrency: number;
}

/**
 * With `passwordHash`, its login step first verifies the password against it, as any login form
 * must: the flow is then the least a sign-in with argon2id can cost on that database, and only
 * flows are measured.
 */
export async function benchBareProvider(
  options: BareFlowOptions,
  adapter?: new (name: string) => Adapter,
  passwordHash?: string,
) {
  const { password, redirect, seconds, concurrency } = options;
  const secret = 'bench-secret-bench-secret-bench-secret';
  const configuration: Configuration = {
    ...(adapter ? { adapter } : {}),
    clients: [
      {
        client_id: 'bench',
        client_secret: secret,
        redirect_uris: [redirect],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, email: `${sub}@bench.test` }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    cookies: { keys: ['bench-cookie-key'] },
    rotateRefreshToken: true,
    issueRefreshToken: (_ctx, c) => c.grantTypeAllowed('refresh_token'),
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId,
      });
      grant.addOIDCScope(String(ctx.oidc.params!.scope));
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider('http://localhost:8080/oidc', configuration);
  const callback = provider.callback();
  // The login step a bare provider needs: finish the interaction as user-1, no code.
  const dispatch: DispatchFunc = (req, res) => {
    if (req.url!.startsWith('/interaction/')) {
      void (passwordHash ? verify(passwordHash, password.normalize('NFKC')) : Promise.resolve(true))
        .then(() => provider.interactionResult(req, res, { login: { accountId: 'user-1' } }))
        .then((to) => {
          res.statusCode = 303;
          res.setHeader('location', to);
          res.end();
        });
      return;
    }
    req.url = req.url!.replace(/^\/oidc/, '') || '/';
    void callback(req, res);
  };
  const send: Send = async (o) => {
    const res = await inject(dispatch, {
      ...o,
      method: (o.method ?? 'GET') as 'GET',
      headers: { host: 'localhost:8080', ...o.headers },
    });
    return { statusCode: res.statusCode, headers: res.headers, body: res.body };
  };
  const refreshTokens: string[] = [];
  const flow = async () => {
    const browser = client(send, '');
    const { verifier, challenge } = pkce();
    const auth = await browser({
      url: `/oidc/auth?${new URLSearchParams({ client_id: 'bench', response_type: 'code', scope: 'openid email', redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256', state: 's' })}`,
    });
    const finished = await browser({ url: location(auth) });
    const resumed = await browser({ url: location(finished) });
    const code = new URL(String(resumed.headers.location)).searchParams.get('code');
    if (!code) throw new Error(`bare: no code: ${String(resumed.headers.location)}`);
    const tokens = await browser(
      tokenRequest('bench', secret, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirect,
        code_verifier: verifier,
      }),
    );
    const refresh = JSON.parse(tokens.body).refresh_token as string;
    if (!refresh) throw new Error(`bare token: ${tokens.body}`);
    refreshTokens.push(refresh);
  };
  const flows = await rate(
    Array.from({ length: concurrency }, () => flow),
    seconds,
    passwordHash ? 'bare flow with argon2id (one table)' : undefined,
  );
  if (passwordHash) return { flows, refreshes: Number.NaN };
  const chains = refreshTokens.slice(-concurrency);
  const refreshes = await rate(
    chains.map((_, i) => async () => {
      const res = await send(
        tokenRequest('bench', secret, { grant_type: 'refresh_token', refresh_token: chains[i]! }),
      );
      const next = JSON.parse(res.body).refresh_token as string | undefined;
      if (!next) throw new Error(`bare refresh: ${res.body}`);
      chains[i] = next;
    }),
    seconds,
    `bare refresh grant (${adapter ? 'one table' : 'in memory'})`,
  );
  return { flows, refreshes };
}
