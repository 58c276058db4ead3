import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, signInAs } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from '../users/helpers.ts';
import { dryRun, finishImport, startImport, usersOf } from './helpers.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t.close();
});

/** An organisation on Business with `seats` seats, its admin holding one of them. */
async function organizationWithSeats(seats: number) {
  const org = await createOrganizationWithAdmin(t.db, {
    subscription: { planKey: 'business', seats, status: 'active' },
  });
  await addDomain(t.db, org.id, `${org.siteName}.test`, 'verified');
  return { org, admin: await signInAs(t.db, org.admin) };
}

const fileFor = (domain: string, names: string[]) =>
  ['First name,Last name,E-mail', ...names.map((n) => `${n},Example,${n.toLowerCase()}@${domain}`)].join(
    '\n',
  );

describe('imports within the seats bought', () => {
  it('the dry run says once how many more seats it needs, and lists only rows with other errors', async () => {
    const { org, admin } = await organizationWithSeats(3);
    const file = [
      fileFor(`${org.siteName}.test`, ['Grace', 'Alan', 'Barbara', 'Edsger']),
      'Bad,Row,not-an-address',
    ].join('\n');
    const result = await dryRun(t, admin, file);
    expect(result.status).toBe(200);
    expect(result.body.counts).toEqual({ create: 2, update: 0, unchanged: 0, errors: 3 });
    expect(result.body.seats).toEqual({
      moreNeeded: 2,
      message:
        'You need 2 more seats to import every row: the file adds 4 users and 2 of the 3 seats of your ' +
        'Business plan are free. Add seats on the Subscriptions page, or the import skips the last 2 new users.',
    });
    expect(result.body.errors).toEqual([{ row: 6, email: 'not-an-address', message: expect.any(String) }]);
    expect(JSON.stringify(result.body.errors)).not.toContain('seat');
  });

  it('the dry run says nothing of seats when every new user fits', async () => {
    const { org, admin } = await organizationWithSeats(3);
    const result = await dryRun(t, admin, fileFor(`${org.siteName}.test`, ['Grace']));
    expect(result.body.seats).toBeNull();
  });

  it('the import creates users only while seats are free, counting people added before it', async () => {
    const { org, admin } = await organizationWithSeats(3);
    const domain = `${org.siteName}.test`;
    // An admin takes one of the two free seats before the file is imported.
    const added = await as(t, admin).post('/api/users', {
      firstName: 'Ken',
      lastName: 'Example',
      localPart: 'ken',
      domain,
      credential: 'invitation',
    });
    expect(added.status).toBe(201);
    const started = await startImport(t, admin, fileFor(domain, ['Grace', 'Alan', 'Barbara', 'Edsger']));
    expect(started.status).toBe(202);
    await finishImport(t, started.body.id);

    const job = (await as(t, admin).get(`/api/migration/user-imports/${started.body.id}`)).body;
    expect(job).toMatchObject({ status: 'done', counts: { create: 1, errors: 3 } });
    expect(Object.keys(await usersOf(t, org.id)).sort()).toEqual(
      [org.admin.email, `grace@${domain}`, `ken@${domain}`].sort(),
    );
    const refused = await as(t, admin).post('/api/users', {
      firstName: 'Leslie',
      lastName: 'Example',
      localPart: 'leslie',
      domain,
      credential: 'invitation',
    });
    expect(refused.status).toBe(409);
  });
});
