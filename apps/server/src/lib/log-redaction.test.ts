import { describe, expect, it } from 'vitest';
import { redactUrl } from './log-redaction.ts';

describe('redactUrl', () => {
  it('hides credentials in the query and keeps the rest', () => {
    expect(redactUrl('/api/sso/start?ticket=abc123&returnTo=%2Fsetup')).toBe(
      '/api/sso/start?ticket=[redacted]&returnTo=%2Fsetup',
    );
    expect(redactUrl('/api/sso/callback?code=xyz&state=s1&iss=http%3A%2F%2Fx')).toBe(
      '/api/sso/callback?code=[redacted]&state=[redacted]&iss=http%3A%2F%2Fx',
    );
  });

  it('hides set-password tokens in the path', () => {
    expect(redactUrl('/api/invitations/tok3n/accept')).toBe('/api/invitations/[redacted]/accept');
    expect(redactUrl('/invite/tok3n')).toBe('/invite/[redacted]');
    expect(redactUrl('/reset-password/tok3n?x=1')).toBe('/reset-password/[redacted]?x=1');
  });

  it('leaves ordinary URLs alone', () => {
    expect(redactUrl('/api/users?q=ada&sort=name')).toBe('/api/users?q=ada&sort=name');
    expect(redactUrl('/dashboard')).toBe('/dashboard');
  });
});
