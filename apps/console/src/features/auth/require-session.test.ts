import type { LoaderFunctionArgs } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getCsrfToken } from '../../lib/api-client.ts';
import { queryClient } from '../../lib/query-client.ts';
import { requireAdmin, requireSignedIn } from './require-session.ts';

const args = (path: string) =>
  ({
    request: new Request(`http://localhost${path}`),
    params: {},
    context: undefined,
  }) as unknown as LoaderFunctionArgs;

const session = (isAdmin: boolean) => ({
  user: {
    id: 'u1',
    firstName: 'Ada',
    lastName: 'Admin',
    name: 'Ada Admin',
    email: 'ada@example.com',
    isAdmin,
    groups: isAdmin ? [{ name: 'Dashboard' }] : [],
  },
  organization: { id: 'o1', name: 'Acme', siteName: 'acme', siteUrl: 'https://acme.example.com' },
  csrfToken: 'csrf-from-session',
});

afterEach(() => {
  queryClient.clear();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the route guard', () => {
  it('loads the session and keeps its CSRF token for later writes', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json(session(true))),
    );
    const user = await requireSignedIn(args('/users'));
    expect(user).toMatchObject({ name: 'Ada Admin', isAdmin: true, organization: { siteName: 'acme' } });
    expect(getCsrfToken()).toBe('csrf-from-session');
  });

  it('sends a signed-out visitor to single sign-on, to come back to the page asked for', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        Response.json({ error: { code: 'unauthenticated', message: 'Sign in' } }, { status: 401 }),
      ),
    );
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign });
    void requireSignedIn(args('/users?page=2'));
    await vi.waitFor(() => expect(assign).toHaveBeenCalled());
    expect(assign).toHaveBeenCalledWith('/api/sso/start?returnTo=%2Fusers%3Fpage%3D2');
  });

  it('sends a signed-in non-admin from an admin page to /application', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json(session(false))),
    );
    const thrown = await requireAdmin(args('/domain')).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).headers.get('location')).toBe('/application');
  });
});
