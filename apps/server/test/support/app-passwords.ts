import { expect } from 'vitest';
import { signInAs, type TestUser } from './fixtures.ts';
import type { TestApp } from './test-app.ts';

/** `user` signs in and creates an app password named `name` through the profile API. */
export async function createAppPassword(server: TestApp, user: TestUser, name: string) {
  const session = await signInAs(server.db, user);
  const created = await server.app.inject({
    method: 'POST',
    url: '/api/profile/app-passwords',
    headers: session.headers,
    payload: { name },
  });
  expect(created.statusCode, created.body).toBe(201);
  const { appPassword, password } = created.json() as { appPassword: { id: string }; password: string };
  return { id: appPassword.id, password, session };
}
