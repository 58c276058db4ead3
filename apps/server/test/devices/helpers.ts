import { expect } from 'vitest';
import type { AdminWorld } from '../support/admin-world.ts';

/** The admin asks for a configuration profile at once (a new app password named `name`). */
export async function requestMobileconfig(world: AdminWorld, name: string) {
  const response = await world.app.inject({
    method: 'POST',
    url: '/api/profile/devices/mobileconfig',
    headers: world.adminSession.headers,
    payload: { name },
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toBe('application/x-apple-aspen-config');
  return response;
}
