import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../db/database.ts';
import { CONSOLE_CLIENT_ID } from './console-client.ts';

/**
 * Logging out from an app (RP-initiated logout that ends the SSO session) also ends the console
 * sessions that came from that SSO session: each keeps the sid the provider gave the console in
 * it. A logout that ends only the app's part ("No, stay signed in") leaves the console alone.
 */
export function endConsoleSessionsWithSsoSession(provider: Provider, db: Db): void {
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as KoaContextWithOIDC).oidc as KoaContextWithOIDC['oidc'] | undefined;
    if (oidc?.route !== 'end_session_confirm') return;
    const session = oidc.session as
      (NonNullable<KoaContextWithOIDC['oidc']['session']> & { destroyed?: boolean }) | undefined;
    const sid = session?.authorizations?.[CONSOLE_CLIENT_ID]?.sid;
    if (!session?.destroyed || !session.accountId || !sid) return;
    await db
      .deleteFrom('console_sessions')
      .where('user_id', '=', session.accountId)
      .where('oidc_sid', '=', sid)
      .execute();
  });
}
