import { describe, expect, it } from 'vitest';
import { signupAccountBodySchema, signupEmailBodySchema, siteNameProblem, siteNameSchema } from './signup.ts';
import { organizationProfileBodySchema } from './organizations.ts';

describe('siteNameProblem', () => {
  it('accepts DNS labels of 3 to 63 lowercase letters, digits and inner hyphens', () => {
    for (const name of ['abc', 'a-b', 'acme-2026', '123', 'a'.repeat(63)])
      expect(siteNameProblem(name)).toBeNull();
  });

  it('names the problem of each bad name', () => {
    expect(siteNameProblem('')).toBe('Enter a site name');
    expect(siteNameProblem('ab')).toBe('Use at least 3 characters');
    expect(siteNameProblem('a'.repeat(64))).toBe('Use at most 63 characters');
    expect(siteNameProblem('acme.com')).toBe('Use only lowercase letters, digits and hyphens');
    expect(siteNameProblem('bücher')).toBe('Use only lowercase letters, digits and hyphens');
    expect(siteNameProblem('-acme')).toBe('Start and end with a letter or a digit');
    for (const reserved of ['www', 'api', 'admin', 'mail', 'oidc', 'console', 'static']) {
      expect(siteNameProblem(reserved)).toBe('This site name is reserved. Choose another one');
    }
  });

  it('reserves the names mail clients and MTA-STS look up under a domain', () => {
    for (const reserved of ['autoconfig', 'autodiscover', 'mta-sts']) {
      expect(siteNameProblem(reserved)).toBe('This site name is reserved. Choose another one');
    }
    for (const name of ['autoconfigs', 'my-autodiscover', 'mta-sts2'])
      expect(siteNameProblem(name)).toBeNull();
  });

  it('refuses punycode (xn--) names, and accepts names with inner double hyphens elsewhere', () => {
    for (const name of ['xn--bcher-kva', 'xn--80ak6aa92e', 'xn--abc']) {
      expect(siteNameProblem(name)).toBe(
        'Do not start with “xn--”, the prefix of encoded international names',
      );
    }
    expect(siteNameSchema.safeParse('xn--bcher-kva').error?.issues.map((i) => i.message)).toEqual([
      'Do not start with “xn--”, the prefix of encoded international names',
    ]);
    for (const name of ['xna--b', 'xn-abc', 'box--n', 'acme-xn--co'])
      expect(siteNameProblem(name)).toBeNull();
  });
});

describe('sign-up schemas', () => {
  it('trims e-mail addresses and refuses malformed ones', () => {
    expect(signupEmailBodySchema.parse({ email: '  ada@example.com ' }).email).toBe('ada@example.com');
    expect(signupEmailBodySchema.safeParse({ email: 'ada@' }).success).toBe(false);
  });

  it('reports a mismatched confirmation on the confirmation field', () => {
    const result = signupAccountBodySchema.safeParse({
      firstName: 'Ada',
      lastName: 'Lovelace',
      password: 'long enough one',
      passwordConfirmation: 'long enough two',
    });
    expect(result.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['passwordConfirmation', 'The passwords do not match'],
    ]);
  });

  it('treats empty optional profile fields as not given', () => {
    expect(
      organizationProfileBodySchema.parse({
        name: 'Acme',
        legalName: ' ',
        industry: '',
        country: '',
        size: '',
        timeZone: '',
      }),
    ).toEqual({ name: 'Acme', legalName: null, industry: null, size: null, country: null, timeZone: null });
  });
});
