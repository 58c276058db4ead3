import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestSession } from '../support/fixtures.ts';

/** A domain row as the domains area stores it (the fields this area reads: name and state). */
export async function addDomain(
  db: Kysely<Database>,
  organizationId: string,
  name: string,
  state: 'pending' | 'verified' | 'failed' = 'verified',
): Promise<void> {
  await db
    .insertInto('domains')
    .values({
      organization_id: organizationId,
      name,
      state,
      verification_token: 'token'.padEnd(32, 'x'),
      dkim_private_key_enc: 'sealed',
      dkim_public_key: 'public',
    })
    .execute();
}

/** `app.inject` as a signed-in admin, JSON in and out. */
export function as(test: TestApp, session: TestSession) {
  const send = async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) => {
    const response = await test.app.inject({
      method,
      url,
      headers: session.headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return {
      status: response.statusCode,
      body: response.body ? safeJson(response.body) : undefined,
      response,
    };
  };
  return {
    get: (url: string) => send('GET', url),
    post: (url: string, payload?: unknown) => send('POST', url, payload ?? {}),
    put: (url: string, payload?: unknown) => send('PUT', url, payload ?? {}),
    patch: (url: string, payload?: unknown) => send('PATCH', url, payload ?? {}),
    delete: (url: string) => send('DELETE', url),
  };
}

// Tests read response bodies freely; the schemas are checked by the server itself.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function safeJson(body: string): any {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
