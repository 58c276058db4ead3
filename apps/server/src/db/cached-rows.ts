import type { ChangeFeed } from './change-feed.ts';

/**
 * Rows read on most requests and rarely written (OIDC clients), kept in memory for as long as
 * nothing changes them: the change feed drops a key when its row changes, in any process, and
 * everything when changes may have been missed. While the feed is down nothing is kept.
 */
export interface CachedRows<V> {
  get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined>;
}

export function cachedRows<V>(
  feed: ChangeFeed,
  table: string,
  options: { maxEntries?: number } = {},
): CachedRows<V> {
  const maxEntries = options.maxEntries ?? 1_000;
  const entries = new Map<string, V>();
  // Bumped by every drop: a load that started before a change must not store what it read.
  let generation = 0;
  feed.subscribe({
    onChange(changed, key) {
      if (changed !== table) return;
      generation++;
      entries.delete(key);
    },
    onReset() {
      generation++;
      entries.clear();
    },
  });
  return {
    async get(key, load) {
      const hit = entries.get(key);
      if (hit !== undefined) return hit;
      const started = generation;
      const value = await load();
      // Misses are not kept: a client being installed must be found as soon as it is written.
      if (value !== undefined && feed.live && started === generation) {
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(key, value);
      }
      return value;
    },
  };
}
