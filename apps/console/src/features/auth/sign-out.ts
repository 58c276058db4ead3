import { api } from '../../lib/api-client.ts';
import { paths, serverPaths } from '../../lib/paths.ts';
import { queryClient } from '../../lib/query-client.ts';

/** Expire every cookie this page can read, on the current host and each parent domain. */
export function clearReadableCookies(doc: Document = document): void {
  const hostParts = doc.location.hostname.split('.');
  const domains = [''];
  for (let i = 0; i < hostParts.length - 1; i += 1) domains.push(`; domain=.${hostParts.slice(i).join('.')}`);
  for (const cookie of doc.cookie.split(';')) {
    const name = cookie.split('=')[0]?.trim();
    if (!name) continue;
    for (const domain of domains) {
      doc.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/${domain}`;
    }
  }
}

/**
 * Sign out (seed spec §4): the server ends the console session, then local storage, session
 * storage and readable cookies are cleared, then the identity provider's end-session address
 * (with id_token_hint) ends the SSO session and comes back to sign-in. The page is replaced,
 * not pushed, so the back button does not return to the console.
 */
export async function signOut(
  navigate: (url: string) => void = (url) => window.location.replace(url),
): Promise<void> {
  let target: string = paths.login();
  try {
    const { endSessionUrl } = await api.post<{ endSessionUrl: string }>(
      serverPaths.ssoLogout() as `/api/${string}`,
    );
    target = endSessionUrl;
  } catch {
    // Already signed out (or the server is unreachable): leaving still clears this browser.
  }
  try {
    window.localStorage.clear();
    window.sessionStorage.clear();
  } catch {
    // Storage can be unavailable (private modes); sign-out goes on.
  }
  clearReadableCookies();
  queryClient.clear();
  navigate(target);
}
