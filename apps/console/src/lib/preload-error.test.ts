import { describe, expect, it, vi } from 'vitest';
import { installPreloadErrorReload, PRELOAD_RELOAD_KEY } from './preload-error.ts';

function fakeWindow() {
  const target = new EventTarget();
  const storage = new Map<string, string>();
  return {
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
    dispatchEvent: target.dispatchEvent.bind(target),
    sessionStorage: {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => void storage.set(key, value),
    } as Storage,
    location: { reload: vi.fn(), assign: vi.fn() },
  };
}

const preloadError = () => new Event('vite:preloadError', { cancelable: true });

describe('vite:preloadError', () => {
  it('reloads once, then lets a repeated failure through', () => {
    const win = fakeWindow();
    let now = 1_000_000;
    installPreloadErrorReload({ win: win as unknown as Window, now: () => now });
    const first = preloadError();
    win.dispatchEvent(first);
    expect(win.location.reload).toHaveBeenCalledTimes(1);
    expect(first.defaultPrevented).toBe(true);
    expect(win.sessionStorage.getItem(PRELOAD_RELOAD_KEY)).toBe(String(now));

    now += 2_000;
    const second = preloadError();
    win.dispatchEvent(second);
    expect(win.location.reload).toHaveBeenCalledTimes(1);
    expect(second.defaultPrevented).toBe(false);

    // Much later (a new deploy), one reload is allowed again.
    now += 60_000;
    win.dispatchEvent(preloadError());
    expect(win.location.reload).toHaveBeenCalledTimes(2);
  });

  it('loads the address a navigation was heading to', () => {
    const win = fakeWindow();
    const stop = installPreloadErrorReload({
      win: win as unknown as Window,
      pendingUrl: () => '/groups?x=1',
    });
    win.dispatchEvent(preloadError());
    expect(win.location.assign).toHaveBeenCalledWith('/groups?x=1');
    expect(win.location.reload).not.toHaveBeenCalled();
    stop();
  });
});
