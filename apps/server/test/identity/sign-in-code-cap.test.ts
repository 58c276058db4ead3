import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, createUser } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { openSignIn } from './support/sign-in.ts';

const PASSWORD = 'correct horse battery staple';

// Issue 17 item 6: the hourly cap of 6 codes an address counts the codes that were not used, so
// a person who signs in seven times in an hour is not refused the seventh time; unused codes
// still count (sign-in-code-limits.test.ts).
describe('the hourly code cap and codes that were used', () => {
  let mailbox: Mailbox;
  let server: TestApp;
  let origin: string;
  let passwordHash: string;
  let organizationId: string;

  beforeAll(async () => {
    mailbox = await Mailbox.start();
    server = await createTestApp({ env: { SMTP_URL: mailbox.url }, listen: true });
    origin = server.config.publicUrl.origin;
    passwordHash = await hashPassword(PASSWORD);
    organizationId = (await createOrganizationWithAdmin(server.db, { passwordHash })).id;
  });

  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });

  it('lets a person sign in seven times in an hour, each with its code', async () => {
    const user = await createUser(server.db, organizationId, { passwordHash });
    for (let i = 0; i < 7; i++) {
      const { post } = await openSignIn(origin);
      const after = mailbox.count;
      const password = await post('password', { email: user.email, password: PASSWORD });
      expect(password.status, `sign-in ${i + 1}: ${password.body}`).toBe(200);
      const code = await mailbox.waitForCode(user.email, { after });
      const done = await post('code', { code });
      expect(done.status, `sign-in ${i + 1}: ${done.body}`).toBe(200);
    }
  });

  it('still refuses a seventh code when the six before it were not used', async () => {
    const user = await createUser(server.db, organizationId, { passwordHash });
    const used = await openSignIn(origin);
    let after = mailbox.count;
    await used.post('password', { email: user.email, password: PASSWORD });
    expect((await used.post('code', { code: await mailbox.waitForCode(user.email, { after }) })).status).toBe(
      200,
    );
    // One used and six unused: the seventh unused one is refused.
    for (let i = 0; i < 6; i++) {
      const { post } = await openSignIn(origin);
      after = mailbox.count;
      expect((await post('password', { email: user.email, password: PASSWORD })).status).toBe(200);
      await mailbox.waitForCode(user.email, { after });
    }
    const { post } = await openSignIn(origin);
    const refused = await post('password', { email: user.email, password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toMatch(/^Too many codes were sent to this address/);
  });
});
