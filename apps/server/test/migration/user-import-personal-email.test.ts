import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, signInAs, type TestOrganization } from '../support/fixtures.ts';
import type { TestSession } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain } from '../users/helpers.ts';
import { dryRun, runJobsUntil, startImport } from './helpers.ts';

// Issue 42 item 1: the personal address columns of the three formats; imported invited users get
// their invitation there.
let mailbox: Mailbox;
let t: TestApp;
let org: TestOrganization;
let session: TestSession;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  t = await createTestApp({ env: { SMTP_URL: mailbox.url } });
  org = await createOrganizationWithAdmin(t.db);
  session = await signInAs(t.db, org.admin);
  await addDomain(t.db, org.id, 'import-personal.test');
});

afterAll(async () => {
  await t.close();
  await mailbox.close();
});

async function importAndReadInvitations(csv: string, recipients: string[]) {
  const started = await startImport(t, session, csv);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  await runJobsUntil(t, async () => recipients.every((r) => mailbox.messages.some((m) => m.to.includes(r))));
  return recipients.map((r) => mailbox.messages.find((m) => m.to.includes(r))!);
}

const personalOf = async (email: string) =>
  (
    await t.db
      .selectFrom('users')
      .select('personal_email')
      .where('email', '=', email)
      .executeTakeFirstOrThrow()
  ).personal_email;

describe('personal addresses in user files', () => {
  it('reads Atrium’s “Personal email”, Google’s “Recovery Email” and Microsoft’s “Alternate email address”', async () => {
    const atrium = [
      'First name,Last name,E-mail,Personal email,Send invitation',
      'Ada,Atrium,ada@import-personal.test,Ada.Home@Example.org,yes',
    ].join('\n');
    const google = [
      'First Name [Required],Last Name [Required],Email Address [Required],Password [Required],Recovery Email,Org Unit Path [Required]',
      'Gil,Google,gil@import-personal.test,********,gil@home.example,/',
    ].join('\n');
    const microsoft = [
      'User principal name,First name,Last name,Display name,Alternate email address,Send invitation',
      'mo@import-personal.test,Mo,Microsoft,Mo Microsoft,mo@home.example,yes',
    ].join('\n');
    const [a] = await importAndReadInvitations(atrium, ['ada.home@example.org']);
    expect(a!.text).toContain('ada@import-personal.test');
    expect(await personalOf('ada@import-personal.test')).toBe('ada.home@example.org');
    // Google's export has no invitation column: its users get a personal address, not an e-mail.
    const g = await startImport(t, session, google);
    expect(g.status).toBe(202);
    await runJobsUntil(
      t,
      async () => (await personalOf('gil@import-personal.test').catch(() => null)) !== null,
    );
    expect(await personalOf('gil@import-personal.test')).toBe('gil@home.example');
    await importAndReadInvitations(microsoft, ['mo@home.example']);
    expect(await personalOf('mo@import-personal.test')).toBe('mo@home.example');
    expect(mailbox.messages.some((m) => m.to.some((to) => to.endsWith('@import-personal.test')))).toBe(false);
  });

  it('lists a personal address that is not one, or is the user’s own new address, as row errors', async () => {
    const csv = [
      'First name,Last name,E-mail,Personal email',
      'Bad,Address,bad@import-personal.test,nope',
      'Own,Address,own@import-personal.test,own@import-personal.test',
    ].join('\n');
    const result = await dryRun(t, session, csv);
    expect(result.status).toBe(200);
    const messages = (result.body.errors as Array<{ row: number; message: string }>).map((e) => [
      e.row,
      e.message,
    ]);
    expect(messages).toEqual([
      [2, 'Personal email: Enter an address such as ann@example.org'],
      [3, expect.stringMatching(/^Personal email: this is the address being created here/)],
    ]);
  });
});
