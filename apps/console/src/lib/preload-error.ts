/** sessionStorage key remembering when the page last reloaded because a chunk failed to load. */
export const PRELOAD_RELOAD_KEY = 'atrium:preload-reload-at';
/** Within this window a second failure is not answered by another reload. */
export const PRELOAD_RELOAD_WINDOW_MS = 10_000;

type PreloadWindow = Pick<Window, 'addEventListener' | 'removeEventListener' | 'sessionStorage'> & {
  location: Pick<Location, 'reload' | 'assign'>;
};

export interface PreloadErrorOptions {
  win?: PreloadWindow;
  now?: () => number;
  /** The address a navigation was heading to when its chunk failed, if any: reload straight there. */
  pendingUrl?: () => string | undefined;
}

/**
 * After a deploy, old chunk names disappear and lazy routes fail to load (`vite:preloadError`).
 * Reload once to fetch the new build; a failure soon after that reload falls through to the
 * router's error screen instead of looping.
 */
export function installPreloadErrorReload({
  win = window,
  now = Date.now,
  pendingUrl = () => undefined,
}: PreloadErrorOptions = {}): () => void {
  function onPreloadError(event: Event) {
    let last = 0;
    try {
      last = Number(win.sessionStorage.getItem(PRELOAD_RELOAD_KEY) ?? 0);
      if (now() - last < PRELOAD_RELOAD_WINDOW_MS) return;
      win.sessionStorage.setItem(PRELOAD_RELOAD_KEY, String(now()));
    } catch {
      return;
    }
    event.preventDefault();
    const target = pendingUrl();
    if (target) win.location.assign(target);
    else win.location.reload();
  }
  win.addEventListener('vite:preloadError', onPreloadError);
  return () => win.removeEventListener('vite:preloadError', onPreloadError);
}
