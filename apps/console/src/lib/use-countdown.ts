import { useEffect, useState } from 'react';

/** Seconds until `iso`, ticking every second; 0 once it has passed. */
export function useCountdown(iso: string | null | undefined): number {
  const target = iso ? Date.parse(iso) : 0;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (target <= Date.now()) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [target]);
  return Math.max(0, Math.ceil((target - now) / 1000));
}
