import './steps.css';
import { Check, SkipForward } from 'lucide-react';
import type { CSSProperties } from 'react';

export interface StepItem {
  key: string;
  label: string;
  state: 'done' | 'skipped' | 'current' | 'todo';
}

function Dot({ state, number }: { state: StepItem['state']; number: number }) {
  if (state === 'done') return <Check size={14} strokeWidth={3} />;
  if (state === 'skipped') return <SkipForward size={12} strokeWidth={2.5} />;
  return <>{number}</>;
}

/**
 * A numbered progress line (sign-up stages, setup steps). Labels are always whole: they wrap
 * under their dot, and below 576 px the steps stand in two columns beside their dots instead.
 * A skipped step has its own icon and colour and says "Skipped"; a done one says so to
 * assistive technology.
 */
export function Steps({ items, label }: { items: StepItem[]; label: string }) {
  const rows = { '--atrium-steps-rows': Math.ceil(items.length / 2) } as CSSProperties;
  return (
    <ol className="atrium-steps list-unstyled mb-4" aria-label={label} style={rows}>
      {items.map((item, i) => (
        <li
          key={item.key}
          className={`atrium-steps__item is-${item.state}`}
          aria-current={item.state === 'current' ? 'step' : undefined}
        >
          <span className="atrium-steps__dot" aria-hidden="true">
            <Dot state={item.state} number={i + 1} />
          </span>
          <span className="atrium-steps__text">
            <span className="atrium-steps__label">{item.label}</span>
            {item.state === 'skipped' ? (
              <span className="atrium-steps__note">
                <span className="visually-hidden">, </span>Skipped
              </span>
            ) : null}
            {item.state === 'done' ? <span className="visually-hidden">, done</span> : null}
          </span>
        </li>
      ))}
    </ol>
  );
}
