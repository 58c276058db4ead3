import { readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { apply, hostOwnership } from '../install/host-changes.ts';
import { listReleases, releaseDeployed } from '../install/release.ts';

/**
 * `current` links to the serving release (install makes it); update adds `previous` beside it, the
 * release it replaced, which is where `--rollback` and a failed update go back to.
 */
export const KEPT_RELEASES = 3;

export const previousLink = (layout: HostLayout) => path.join(path.dirname(layout.current), 'previous');

/** The release id a link points to, when it points to a deployed release. */
export function linkedRelease(layout: HostLayout, link: string): string | undefined {
  let target: string;
  try {
    target = readlinkSync(link);
  } catch {
    return undefined;
  }
  const id = path.basename(target);
  return releaseDeployed(layout.releases, id) ? id : undefined;
}

/** Points `link` at release `id`, atomically (a new link renamed over the old one). */
export function pointTo(layout: HostLayout, link: string, id: string): void {
  apply({ kind: 'link', path: link, target: path.join(layout.releases, id) }, hostOwnership(false));
}

/**
 * Removes all but the newest KEPT_RELEASES releases (by when they were deployed), never the
 * current or previous one; returns the ids removed.
 */
export function pruneReleases(layout: HostLayout): string[] {
  const keep = new Set(
    [linkedRelease(layout, layout.current), linkedRelease(layout, previousLink(layout))].filter(Boolean),
  );
  const releases = listReleases(layout.releases);
  const old = releases.slice(0, Math.max(0, releases.length - KEPT_RELEASES)).filter((id) => !keep.has(id));
  for (const id of old) rmSync(path.join(layout.releases, id), { recursive: true, force: true });
  return old;
}
