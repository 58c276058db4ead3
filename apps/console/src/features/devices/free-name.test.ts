import { describe, expect, it } from 'vitest';
import { freeDeviceName } from './free-name.ts';

describe('freeDeviceName', () => {
  it('offers the name itself while no app password has it', () => {
    expect(freeDeviceName('iPhone', [])).toBe('iPhone');
    expect(freeDeviceName('iPhone', ['Thunderbird', 'Ada’s iPhone'])).toBe('iPhone');
  });

  it('numbers a second and a third device of a kind, filling the first gap', () => {
    expect(freeDeviceName('iPhone', ['iPhone'])).toBe('iPhone 2');
    expect(freeDeviceName('iPhone', ['iPhone', 'iPhone 2'])).toBe('iPhone 3');
    expect(freeDeviceName('iPhone', ['iPhone', 'iPhone 3'])).toBe('iPhone 2');
  });

  it('takes names that differ only in case or spaces around them as taken', () => {
    expect(freeDeviceName('Android phone', [' android PHONE '])).toBe('Android phone 2');
  });
});
