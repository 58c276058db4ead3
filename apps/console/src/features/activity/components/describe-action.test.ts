import { describe, expect, it } from 'vitest';
import { describeAction, kindLabel } from './describe-action.ts';

describe('describeAction', () => {
  it('spells out an action from its id', () => {
    expect(describeAction('user.password_reset')).toBe('User password reset');
  });

  it('writes DNS as DNS', () => {
    expect(describeAction('dns.record_published')).toBe('DNS record published');
    expect(describeAction('dns.record_failed')).toBe('DNS record could not be published');
    expect(kindLabel('dns.record_failed')).toBe('DNS');
  });
});
