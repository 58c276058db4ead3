import './steps.css';
import { Check } from 'lucide-react';

export interface StepItem {
  key: string;
  label: string;
  state: 'done' | 'current' | 'todo';
}

/**
 * A numbered progress line (sign-up stages, setup steps). Narrow screens show the numbers and
 * one caption for the current step instead of squeezed labels.
 */
export function Steps({ items, label }: { items: StepItem[]; label: string }) {
  const index = items.findIndex((item) => item.state === 'current');
  const current = items[index];
  return (
    <div className="mb-4">
      <ol className="atrium-steps list-unstyled d-flex justify-content-between mb-2" aria-label={label}>
        {items.map((item, i) => (
          <li
            key={item.key}
            className={`atrium-steps__item is-${item.state}`}
            aria-current={item.state === 'current' ? 'step' : undefined}
          >
            <span className="atrium-steps__dot" aria-hidden="true">
              {item.state === 'done' ? <Check size={14} strokeWidth={3} /> : i + 1}
            </span>
            <span className="atrium-steps__label d-none d-sm-block">{item.label}</span>
            <span className="visually-hidden d-sm-none">{item.label}</span>
          </li>
        ))}
      </ol>
      {current ? (
        <p className="d-sm-none text-center small fw-semibold mb-0" aria-hidden="true">
          Step {index + 1} of {items.length}: {current.label}
        </p>
      ) : null}
    </div>
  );
}
