import { afterAll, beforeAll } from 'vitest';

/**
 * Starts a test world in `beforeAll` and closes it in `afterAll`. The object returned is empty
 * until then: read its fields inside hooks and tests, not in the describe body.
 */
export function useStarted<T extends { close(): Promise<void> }>(start: () => Promise<T>): T {
  const world = {} as T;
  beforeAll(async () => {
    Object.assign(world, await start());
  });
  afterAll(async () => {
    // Only when it started: a failed start leaves nothing to close.
    if ('close' in world) await world.close();
  });
  return world;
}
