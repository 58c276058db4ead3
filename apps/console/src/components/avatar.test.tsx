import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Avatar, avatarLetter } from './avatar.tsx';

afterEach(cleanup);

describe('Avatar', () => {
  it('shows the uppercased first letter of the text', () => {
    const { container } = render(<Avatar text="alex" />);
    expect(container.textContent).toBe('A');
  });

  it("shows '?' when no text is given", () => {
    expect(render(<Avatar />).container.textContent).toBe('?');
    expect(avatarLetter('')).toBe('?');
    expect(avatarLetter('   ')).toBe('?');
    expect(avatarLetter(null)).toBe('?');
  });

  it('is 30 by 30 with font size 20 on orange by default', () => {
    const { container } = render(<Avatar text="z" />);
    const el = container.firstElementChild as HTMLElement;
    expect(el.style.width).toBe('30px');
    expect(el.style.height).toBe('30px');
    expect(el.style.fontSize).toBe('20px');
    expect(el.style.backgroundColor).toBe('orange');
  });

  it('accepts another size and colour', () => {
    const { container } = render(<Avatar text="b" size={64} fontSize={30} color="teal" />);
    const el = container.firstElementChild as HTMLElement;
    expect(el.style.width).toBe('64px');
    expect(el.style.fontSize).toBe('30px');
    expect(el.style.backgroundColor).toBe('teal');
  });
});
