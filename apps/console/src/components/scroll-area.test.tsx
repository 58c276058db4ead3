import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { keyboardScrollDelta, ScrollArea } from './scroll-area.tsx';

afterEach(cleanup);

describe('ScrollArea', () => {
  it('scrolls 30 px per arrow key', () => {
    render(<ScrollArea aria-label="list" role="region" />);
    const area = screen.getByRole('region', { name: 'list' });
    expect(area.tabIndex).toBe(0);
    fireEvent.keyDown(area, { key: 'ArrowDown' });
    fireEvent.keyDown(area, { key: 'ArrowDown' });
    expect(area.scrollTop).toBe(60);
    fireEvent.keyDown(area, { key: 'ArrowUp' });
    expect(area.scrollTop).toBe(30);
  });

  it('leaves other keys alone', () => {
    expect(keyboardScrollDelta('ArrowRight')).toEqual({ top: 0, left: 30 });
    expect(keyboardScrollDelta('Enter')).toBeNull();
  });
});
