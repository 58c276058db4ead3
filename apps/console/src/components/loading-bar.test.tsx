import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LoadingBar, trickle } from './loading-bar.tsx';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('LoadingBar', () => {
  it('trickles between the minimum and the maximum', () => {
    expect(trickle(0)).toBe(0.1);
    let value = 0.08;
    for (let i = 0; i < 1000; i += 1) value = trickle(value);
    expect(value).toBe(0.994);
  });

  it('starts at 0.08, trickles every 800 ms with a 200 ms animation, and goes away when done', () => {
    vi.useFakeTimers();
    const { rerender } = render(<LoadingBar active />);
    const bar = screen.getByRole('progressbar');
    expect(bar.getAttribute('aria-valuenow')).toBe('8');
    expect((bar.firstElementChild as HTMLElement).style.transitionDuration).toBe('200ms');
    act(() => vi.advanceTimersByTime(799));
    expect(bar.getAttribute('aria-valuenow')).toBe('8');
    act(() => vi.advanceTimersByTime(1));
    expect(bar.getAttribute('aria-valuenow')).toBe('18');
    rerender(<LoadingBar active={false} />);
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    act(() => vi.advanceTimersByTime(400));
    expect(screen.queryByRole('progressbar')).toBeNull();
  });
});
