// The simulated browser of the identity bench: a cookie jar over an inject function, PKCE, and the
// requests and redirects of an OpenID Connect code flow.
import { createHash, randomBytes } from 'node:crypto';

export type Send = (options: {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  payload?: string;
}) => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>;

/** A cookie jar over an inject function, from one client address. */
export function client(send: Send, ip: string) {
  const jar = new Map<string, string>();
  return async (options: Parameters<Send>[0]) => {
    const headers: Record<string, string> = { ...options.headers, 'x-bench-ip': ip };
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await send({ ...options, headers });
    const set = res.headers['set-cookie'];
    for (const line of (Array.isArray(set) ? set : set ? [set] : []) as string[]) {
      const [pair = ''] = line.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  };
}

export const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};
export const location = (res: { headers: Record<string, unknown> }) => {
  const value = res.headers.location;
  if (typeof value !== 'string') throw new Error('expected a redirect');
  const url = new URL(value, 'http://localhost:8080');
  return url.pathname + url.search;
};

export function tokenRequest(clientId: string, secret: string, form: Record<string, string>) {
  return {
    method: 'POST',
    url: '/oidc/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
    },
    payload: new URLSearchParams(form).toString(),
  };
}
