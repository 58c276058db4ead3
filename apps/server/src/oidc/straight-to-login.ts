import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

const INTERACTION_STOP = /^\/api\/interactions\/([\w-]+)$/;

/**
 * The provider sends the browser to /api/interactions/<uid>, the path its interaction cookie is
 * scoped to. That stop only has work to do for someone already signed in (the app may be closed
 * to them) and for a sign-in ticket (the console then asks with prompt=login). Everyone else goes
 * straight to /login?uid=…: one round trip less before the page, some 150 ms on a phone.
 */
export function sendStraightToLogin(provider: Provider): void {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status !== 302 && ctx.status !== 303) return;
    const uid = INTERACTION_STOP.exec(ctx.response.get('location'))?.[1];
    const oidc = (ctx as KoaContextWithOIDC).oidc as KoaContextWithOIDC['oidc'] | undefined;
    const promptLogin = String(oidc?.params?.prompt ?? '')
      .split(' ')
      .includes('login');
    if (uid && !oidc?.session?.accountId && !promptLogin) ctx.redirect(`/login?uid=${uid}`);
  });
}
