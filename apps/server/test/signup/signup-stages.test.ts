import { EMAIL_REGISTERED, SITE_NAME_TAKEN } from '@atrium/contracts/signup';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, type TestOrganization } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { expectOk, fieldsOf, SignupVisitor } from './signup-visitor.ts';

let mailbox: Mailbox;
let server: TestApp;
let existing: TestOrganization;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await createTestApp({ env: { SMTP_URL: mailbox.url, SITE_BASE_DOMAIN: 'atrium.test' } });
  existing = await createOrganizationWithAdmin(server.db, {
    siteName: 'acme',
    adminEmail: 'owner@acme.example',
  });
});

afterAll(async () => {
  await server?.close();
  await mailbox?.close();
});

const visitor = () => new SignupVisitor(server.app);

describe('site stage', () => {
  it.each([
    ['ab', 'Use at least 3 characters'],
    ['a'.repeat(64), 'Use at most 63 characters'],
    ['my_site', 'Use only lowercase letters, digits and hyphens'],
    ['my site', 'Use only lowercase letters, digits and hyphens'],
    ['MySite', 'Use only lowercase letters, digits and hyphens'],
    ['-site', 'Start and end with a letter or a digit'],
    ['site-', 'Start and end with a letter or a digit'],
    ['', 'Enter a site name'],
    ['www', 'This site name is reserved. Choose another one'],
    ['admin', 'This site name is reserved. Choose another one'],
    ['oidc', 'This site name is reserved. Choose another one'],
    ['autoconfig', 'This site name is reserved. Choose another one'],
    ['autodiscover', 'This site name is reserved. Choose another one'],
    ['mta-sts', 'This site name is reserved. Choose another one'],
    ['xn--bcher-kva', 'Do not start with “xn--”, the prefix of encoded international names'],
  ])('refuses %j with a field message', async (siteName, message) => {
    const v = visitor();
    const response = await v.site('Example Ltd', siteName);
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toEqual({ siteName: message });
    expect(v.cookie).toBeUndefined();
  });

  it('refuses a site name another organisation has', async () => {
    const response = await visitor().site('Acme again', existing.siteName);
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toEqual({ siteName: SITE_NAME_TAKEN });
  });

  it('refuses a missing organisation name', async () => {
    const response = await visitor().site('   ', 'fine-name');
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response).organizationName).toBe('Enter your organisation’s name');
  });

  it('answers the live availability check for free, invalid, reserved and taken names', async () => {
    const ask = async (name: string) =>
      (
        await server.app.inject({ url: `/api/signup/site-availability?siteName=${encodeURIComponent(name)}` })
      ).json();
    expect(await ask('free-name-1')).toEqual({
      siteName: 'free-name-1',
      available: true,
      message: null,
      siteUrl: 'https://free-name-1.atrium.test',
    });
    expect(await ask('acme')).toMatchObject({ available: false, message: SITE_NAME_TAKEN });
    expect(await ask('api')).toMatchObject({
      available: false,
      message: 'This site name is reserved. Choose another one',
    });
    expect(await ask('x')).toMatchObject({
      available: false,
      message: 'Use at least 3 characters',
      siteUrl: null,
    });
    expect(await ask('mta-sts')).toMatchObject({
      available: false,
      message: 'This site name is reserved. Choose another one',
    });
    expect(await ask('xn--80ak6aa92e')).toMatchObject({
      available: false,
      message: 'Do not start with “xn--”, the prefix of encoded international names',
      siteUrl: null,
    });
  });

  it('starts a flow held by an HttpOnly, Strict cookie scoped to the sign-up API', async () => {
    const response = await visitor().site('Globex', 'globex');
    expect(response.statusCode).toBe(200);
    const cookie = response.cookies.find((c) => c.name === 'atrium_signup');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/signup' });
    expect(response.json()).toMatchObject({
      stage: 'email',
      organizationName: 'Globex',
      siteName: 'globex',
      siteUrl: 'https://globex.atrium.test',
    });
  });
});

describe('e-mail stage', () => {
  it('needs a flow first', async () => {
    const response = await visitor().email('someone@example.com');
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('signup_expired');
  });

  it.each(['not-an-address', 'two@@example.com', 'space in@example.com', `${'a'.repeat(250)}@example.com`])(
    'refuses the malformed address %j',
    async (email) => {
      const v = visitor();
      expectOk(await v.site('Initech', `initech-${Math.random().toString(36).slice(2, 8)}`));
      const response = await v.email(email);
      expect(response.statusCode).toBe(400);
      expect(fieldsOf(response).email).toMatch(/e-mail address/);
    },
  );

  it('refuses an address that is already registered, whatever its case', async () => {
    const v = visitor();
    expectOk(await v.site('Hooli', 'hooli'));
    const response = await v.email('Owner@ACME.example');
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toEqual({ email: EMAIL_REGISTERED });
  });

  it('is rate limited per client address (it reveals whether an address is registered)', async () => {
    const v = visitor();
    expectOk(await v.site('Probe', 'probe-org'));
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await v.email('owner@acme.example')).statusCode);
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

describe('verify stage', () => {
  it('refuses a wrong code, counting the tries left, and kills the code after five', async () => {
    const v = visitor();
    expectOk(await v.site('Wrong Code Ltd', 'wrong-code'));
    expectOk(await v.email('wrong@code.example'));
    const code = await mailbox.waitForCode('wrong@code.example');
    const wrong = code === '000000' ? '111111' : '000000';
    const first = await v.verify(wrong);
    expect(first.statusCode).toBe(400);
    expect(fieldsOf(first).code).toBe('This code is not correct. 4 tries left.');
    for (let i = 0; i < 3; i++) await v.verify(wrong);
    const fifth = await v.verify(wrong);
    expect(fieldsOf(fifth).code).toMatch(/Too many wrong codes/);
    const right = await v.verify(code);
    expect(right.statusCode).toBe(400);
    expect(fieldsOf(right).code).toMatch(/no longer valid/);
  });

  it('refuses an expired code', async () => {
    const v = visitor();
    expectOk(await v.site('Late Ltd', 'late-ltd'));
    expectOk(await v.email('late@late.example'));
    const code = await mailbox.waitForCode('late@late.example');
    await sql`update email_codes set expires_at = now() - interval '1 second' where identifier = 'late@late.example'`.execute(
      server.db,
    );
    const response = await v.verify(code);
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response).code).toBe('This code has expired. Send a new code.');
  });

  it('refuses a code that is not six digits', async () => {
    const v = visitor();
    expectOk(await v.site('Short Code', 'short-code'));
    expectOk(await v.email('short@code.example'));
    const response = await v.verify('12ab');
    expect(fieldsOf(response).code).toBe('Enter the 6-digit code from the e-mail');
  });

  it('re-sends only after 60 seconds', async () => {
    const v = visitor();
    expectOk(await v.site('Eager Ltd', 'eager-ltd'));
    expectOk(await v.email('eager@eager.example'));
    const response = await v.send('POST', '/api/signup/code/resend', {});
    expect(response.statusCode).toBe(429);
    expect(response.json().error.message).toMatch(/You can ask for a new code in \d+ seconds/);
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('binds a code to its flow: another flow for the same address cannot use it', async () => {
    const a = visitor();
    const b = visitor();
    expectOk(await a.site('Tab A', 'tab-a-org'));
    expectOk(await b.site('Tab B', 'tab-b-org'));
    expectOk(await a.email('shared@shared.example'));
    const codeA = await mailbox.waitForCode('shared@shared.example');
    const after = mailbox.count;
    expectOk(await b.email('shared@shared.example'));
    const codeB = await mailbox.waitForCode('shared@shared.example', { after });
    // a's code died when b asked for one; b's code is b's alone.
    expect(fieldsOf(await a.verify(codeA)).code).toMatch(/no longer valid/);
    expect(fieldsOf(await a.verify(codeB)).code).toMatch(/no longer valid/);
    expectOk(await b.verify(codeB));
  });

  it('caps the codes one address gets in an hour at 6, across flows, and says when to try again', async () => {
    const responses = [];
    for (let i = 0; i < 7; i++) {
      const v = visitor();
      expectOk(await v.site('Flood', `flood-${i}`));
      responses.push(await v.email('victim@flood.example'));
    }
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(responses[6]!.json().error.message).toMatch(
      /^Too many codes were sent to this address\. Try again in (59|60) minutes\.$/,
    );
  });
});

describe('account stage', () => {
  let v: SignupVisitor;
  beforeAll(async () => {
    v = visitor();
    await v.reachAccount(mailbox, 'account-stage', 'grace@account.example');
  });

  it('refuses a common password', async () => {
    const response = await v.account({ password: 'password1' });
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toEqual({
      password: 'This password is too common. Choose one that is harder to guess',
    });
  });

  it('refuses a short password', async () => {
    const response = await v.account({ password: 'short' });
    expect(fieldsOf(response).password).toBe('Use at least 8 characters');
  });

  it('refuses a confirmation that does not match', async () => {
    const response = await v.account({
      password: 'correct horse battery',
      passwordConfirmation: 'correct horse batterx',
    });
    expect(fieldsOf(response)).toEqual({ passwordConfirmation: 'The passwords do not match' });
  });

  it('refuses missing names', async () => {
    const response = await v.account({ firstName: ' ', lastName: '', password: 'correct horse battery' });
    expect(fieldsOf(response)).toMatchObject({
      firstName: 'Enter your first name',
      lastName: 'Enter your last name',
    });
  });

  it('keeps the stage after the failures: nothing was created', async () => {
    expect((await v.state()).json()).toMatchObject({ stage: 'account', email: 'grace@account.example' });
    const orgs = await server.db
      .selectFrom('organizations')
      .select('id')
      .where('site_name', '=', 'account-stage')
      .execute();
    expect(orgs).toEqual([]);
  });
});

describe('resuming', () => {
  it('continues from the same stage after a reload and in another tab', async () => {
    const v = visitor();
    expectOk(await v.site('Resume Ltd', 'resume-ltd'));
    expectOk(await v.email('resume@resume.example'));
    const reloaded = (await v.state()).json();
    expect(reloaded).toMatchObject({
      stage: 'verify',
      organizationName: 'Resume Ltd',
      siteName: 'resume-ltd',
      email: 'resume@resume.example',
    });
    expect(Date.parse(reloaded.codeExpiresAt)).toBeGreaterThan(Date.now());
    const code = await mailbox.waitForCode('resume@resume.example');
    const otherTab = v.tab();
    expectOk(await otherTab.verify(code));
    expect((await v.state()).json().stage).toBe('account');
  });

  it('goes back to change the e-mail address, and never forward', async () => {
    const v = visitor();
    expectOk(await v.site('Back Ltd', 'back-ltd'));
    expect((await v.send('POST', '/api/signup/stage', { stage: 'account' })).statusCode).toBe(400);
    expectOk(await v.email('first@back.example'));
    const back = await v.send('POST', '/api/signup/stage', { stage: 'email' });
    expect(back.json().stage).toBe('email');
    expectOk(await v.email('second@back.example'));
    expect((await v.state()).json()).toMatchObject({ stage: 'verify', email: 'second@back.example' });
  });

  it('a visitor without a cookie starts at the site stage', async () => {
    expect((await visitor().state()).json()).toMatchObject({ stage: 'site', siteName: null, email: null });
  });
});
