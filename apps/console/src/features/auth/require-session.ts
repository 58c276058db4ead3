import { redirect, type LoaderFunctionArgs } from 'react-router';
import { ApiError } from '../../lib/api-client.ts';
import { paths, serverPaths } from '../../lib/paths.ts';
import { queryClient } from '../../lib/query-client.ts';
import { currentUserQuery, type CurrentUser } from './api/current-user.ts';

/** Sends the browser to single sign-on, coming back to `returnTo`; never resolves (the page unloads). */
export function goToSignIn(returnTo: string): Promise<never> {
  window.location.assign(serverPaths.ssoStart(returnTo));
  return new Promise<never>(() => undefined);
}

/** Pages anyone may see (the 404): the session when there is one, null when signed out. */
export async function loadOptionalSession(): Promise<CurrentUser | null> {
  try {
    return await queryClient.ensureQueryData(currentUserQuery);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

/**
 * Route guard for every signed-in page: loads the session first; a signed-out
 * visitor goes to sign in and comes back to the page afterwards.
 */
export async function requireSignedIn({ request }: LoaderFunctionArgs): Promise<CurrentUser> {
  const user = await loadOptionalSession();
  if (user) return user;
  const url = new URL(request.url);
  return goToSignIn(`${url.pathname}${url.search}`);
}

/** Admin routes: a signed-in non-admin goes to the apps page. */
export async function requireAdmin(args: LoaderFunctionArgs): Promise<CurrentUser> {
  const user = await requireSignedIn(args);
  if (!user.isAdmin) throw redirect(paths.application());
  return user;
}

/**
 * A page restored from the back/forward cache after sign-out would show the console without
 * asking the server; reload it so the guard runs again.
 */
export function reloadPagesRestoredFromCache(win: Window = window): void {
  win.addEventListener('pageshow', (event) => {
    if (event.persisted) win.location.reload();
  });
}
