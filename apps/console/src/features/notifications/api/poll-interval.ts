/**
 * How often an open console asks for new notifications. Polling, not server-sent events: Atrium
 * may run as several processes behind a load balancer, and a notification written through one
 * process would need a database fan-out (LISTEN/NOTIFY) to reach a stream held by another. A poll
 * reads the database directly, so it is correct with any number of processes; every 30 s keeps a
 * new notification within a minute, and costs one indexed query per
 * visible tab (polling pauses while the tab is hidden).
 */
export const NOTIFICATIONS_POLL_MS = 30_000;

/**
 * A per-browser override (milliseconds, 1 s to 60 s) in local storage, so a browser test need
 * not wait 30 s. It only changes how often this browser asks for its own notifications.
 */
export const POLL_OVERRIDE_KEY = 'atrium.notifications.pollMs';

export function notificationsPollInterval(): number {
  try {
    const override = Number(window.localStorage.getItem(POLL_OVERRIDE_KEY));
    if (Number.isFinite(override) && override >= 1_000 && override <= 60_000) return override;
  } catch {
    // Storage can be unavailable (privacy modes); the default applies.
  }
  return NOTIFICATIONS_POLL_MS;
}
