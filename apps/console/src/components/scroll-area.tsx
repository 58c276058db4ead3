import type { HTMLAttributes, KeyboardEvent } from 'react';
import { SCROLLBAR_KEYBOARD_STEP } from '../lib/constants.ts';

/** How far an arrow key scrolls, or null for keys this area leaves alone. */
export function keyboardScrollDelta(key: string): { top: number; left: number } | null {
  switch (key) {
    case 'ArrowDown':
      return { top: SCROLLBAR_KEYBOARD_STEP, left: 0 };
    case 'ArrowUp':
      return { top: -SCROLLBAR_KEYBOARD_STEP, left: 0 };
    case 'ArrowRight':
      return { top: 0, left: SCROLLBAR_KEYBOARD_STEP };
    case 'ArrowLeft':
      return { top: 0, left: -SCROLLBAR_KEYBOARD_STEP };
    default:
      return null;
  }
}

/** A focusable scroll container that moves 30 px per arrow key. */
export function ScrollArea({ className, onKeyDown, children, ...rest }: HTMLAttributes<HTMLDivElement>) {
  function handleKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    onKeyDown?.(event);
    if (event.defaultPrevented || event.target !== event.currentTarget) return;
    const delta = keyboardScrollDelta(event.key);
    if (!delta) return;
    event.preventDefault();
    event.currentTarget.scrollTop += delta.top;
    event.currentTarget.scrollLeft += delta.left;
  }
  return (
    <div
      tabIndex={0}
      className={['atrium-scroll', className].filter(Boolean).join(' ')}
      onKeyDown={handleKeyDown}
      {...rest}
    >
      {children}
    </div>
  );
}
