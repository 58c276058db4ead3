import { beforeAll, describe, expect, it } from 'vitest';
import { TestBrowser } from './support/browser.ts';
import { signInThroughLogin } from './support/sign-in.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

const PASSWORD = WORLD_PASSWORD;

/**
 * returnTo values an attacker would put in a link to /api/sso/start. Each must end, after a real
 * sign-in, in a redirect from the callback to a page of this console: never another host, never a 500.
 * (Kept under the 30-a-minute limit of /api/sso/start and /api/sso/callback.)
 */
const HOSTILE = [
  '/\t/evil.example/x',
  '/\r/evil.example/x',
  '/\n/evil.example/x',
  '/x\r\nSet-Cookie: stolen=1',
  '/\u3000/x',
  '\u3000//evil.example',
  '/\\evil.example',
  '/\\/evil.example',
  '//evil.example',
  '///evil.example',
  '/.//evil.example',
  '/..//evil.example/x',
  '/a/..//evil.example',
  '/./\\evil.example',
  '/%2F%2Fevil.example',
  '/%5C%5Cevil.example',
  '%2F%2Fevil.example',
  'https://evil.example/x',
  'https:evil.example',
  'https:/evil.example',
  'javascript:alert(1)',
  '/api/session',
  '/oidc/auth',
];

describe('returnTo after sign-in', () => {
  const world = useSignInWorld();
  let browser: TestBrowser;

  beforeAll(async () => {
    browser = new TestBrowser(world.origin);
    const landed = await signInThroughLogin(
      browser,
      world.mailbox,
      '/api/sso/start?returnTo=%2Fusers%3Fpage%3D2%23top',
      { email: world.org.admin.email, password: PASSWORD },
      (u) => !u.pathname.startsWith('/oidc') && !u.pathname.startsWith('/api/'),
    );
    expect(landed).toBe(`${world.origin}/users?page=2#top`);
  });

  const cases = [
    ...HOSTILE.map((value) => [JSON.stringify(value), encodeURIComponent(value)]),
    // Bytes no string can hold: a lone surrogate's UTF-8 form and a bare 0xFF.
    ['a lone surrogate', '%2F%ED%A0%80'],
    ['an invalid UTF-8 byte', '%2F%FF%2F'],
  ];

  it.each(cases)('lands on a page of the console for %s', async (_label, encoded) => {
    // Signed in already, the browser passes straight through the provider to the callback.
    const hop = await browser.follow(
      `/api/sso/start?returnTo=${encoded}`,
      (u) => !u.pathname.startsWith('/oidc') && !u.pathname.startsWith('/api/'),
    );
    expect(new URL(hop.url).pathname).toBe('/api/sso/callback');
    expect(hop.status, hop.body).toBe(303);
    const raw = hop.headers.get('location')!;
    expect(raw).toMatch(/^\/(?![/\\])/);
    expect(raw).not.toMatch(/[\s\\]/);
    // Resolved as the browser resolves it: this origin, a console page.
    const target = new URL(raw, world.origin);
    expect(target.origin).toBe(world.origin);
    expect(target.pathname).not.toMatch(/^\/(api|oidc|login)/);
  });

  it('sends a path that would leave the origin to the home page', async () => {
    const hop = await browser.follow(
      `/api/sso/start?returnTo=${encodeURIComponent('/\t/evil.example/x')}`,
      (u) => !u.pathname.startsWith('/oidc') && !u.pathname.startsWith('/api/'),
    );
    expect(hop.location).toBe(`${world.origin}/`);
  });

  it('refuses a NUL in returnTo with a 400 naming it, as every API input', async () => {
    const res = await browser.request('/api/sso/start?returnTo=%2F%00%2Fx');
    expect(res.status).toBe(400);
    expect(Object.keys(JSON.parse(res.body).error.fields)).toEqual(['returnTo']);
  });
});
