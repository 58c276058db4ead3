import { useEffect, useRef, useState } from 'react';
import { LOADING_BAR } from '../lib/constants.ts';

/** The next trickle step: larger steps early, never past the maximum while loading. */
export function trickle(progress: number): number {
  let amount: number;
  if (progress < 0.2) amount = 0.1;
  else if (progress < 0.5) amount = 0.04;
  else if (progress < 0.8) amount = 0.02;
  else amount = 0.005;
  return Math.min(Math.max(progress + amount, LOADING_BAR.minimum), LOADING_BAR.maximum);
}

/** A thin progress bar at the top of the page, shown while `active`. */
export function LoadingBar({ active }: { active: boolean }) {
  const [progress, setProgress] = useState<number | null>(null);
  const hideTimer = useRef<number | undefined>(undefined);

  useEffect(() => {
    if (active) {
      window.clearTimeout(hideTimer.current);
      setProgress(LOADING_BAR.minimum);
      const interval = window.setInterval(
        () => setProgress((value) => trickle(value ?? LOADING_BAR.minimum)),
        LOADING_BAR.incrementInterval,
      );
      return () => window.clearInterval(interval);
    }
    // Finished: run to the end, then fade out.
    setProgress((value) => (value === null ? null : 1));
    hideTimer.current = window.setTimeout(() => setProgress(null), LOADING_BAR.animationDuration * 2);
    return () => window.clearTimeout(hideTimer.current);
  }, [active]);

  if (progress === null) return null;
  return (
    <div
      className="atrium-loading-bar"
      role="progressbar"
      aria-label="Loading page"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(progress * 100)}
      data-done={progress >= 1 ? 'true' : undefined}
    >
      <div
        className="atrium-loading-bar__fill"
        style={{
          transform: `translateX(${(progress - 1) * 100}%)`,
          transitionDuration: `${LOADING_BAR.animationDuration}ms`,
        }}
      />
    </div>
  );
}
