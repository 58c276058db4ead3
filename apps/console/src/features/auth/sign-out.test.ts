import { afterEach, describe, expect, it, vi } from 'vitest';
import { setCsrfToken } from '../../lib/api-client.ts';
import { signOut } from './sign-out.ts';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

function stubLogout(response: Response) {
  const fetch = vi.fn(async () => response);
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

describe('signOut', () => {
  it('ends the server session with the CSRF token, clears storage and cookies, then goes to the end-session URL', async () => {
    const endSessionUrl =
      'http://localhost/oidc/session/end?id_token_hint=x&post_logout_redirect_uri=http%3A%2F%2Flocalhost%2Flogin';
    const fetch = stubLogout(Response.json({ endSessionUrl }));
    setCsrfToken('csrf-123');
    localStorage.setItem('a', '1');
    sessionStorage.setItem('b', '2');
    document.cookie = 'theme=dark; path=/';
    document.cookie = 'other=1; path=/';
    const navigate = vi.fn();
    await signOut(navigate);
    expect(fetch).toHaveBeenCalledWith(
      '/api/sso/logout',
      expect.objectContaining({
        method: 'POST',
        headers: expect.objectContaining({ 'X-CSRF-Token': 'csrf-123' }),
      }),
    );
    expect(localStorage.length).toBe(0);
    expect(sessionStorage.length).toBe(0);
    expect(document.cookie).toBe('');
    expect(navigate).toHaveBeenCalledWith(endSessionUrl);
  });

  it('still clears the browser and goes to sign-in when the session had already ended', async () => {
    stubLogout(
      Response.json({ error: { code: 'unauthenticated', message: 'Sign in to continue' } }, { status: 401 }),
    );
    localStorage.setItem('a', '1');
    const navigate = vi.fn();
    await signOut(navigate);
    expect(localStorage.length).toBe(0);
    expect(navigate).toHaveBeenCalledWith('/login');
  });
});
