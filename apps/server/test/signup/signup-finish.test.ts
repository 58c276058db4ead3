import { SITE_NAME_TAKEN } from '@atrium/contracts/signup';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/lib/passwords.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { fieldsOf, SignupVisitor } from './signup-visitor.ts';

let mailbox: Mailbox;
let server: TestApp;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await createTestApp({ env: { SMTP_URL: mailbox.url } });
});

afterAll(async () => {
  await server?.close();
  await mailbox?.close();
});

const password = 'a long and unusual passphrase';

/** Everything a sign-up creates, counted for one site name / address. */
async function madeFor(siteName: string, email: string) {
  const { rows } = await sql<{
    organizations: number;
    users: number;
    groups: number;
    members: number;
    apps: number;
    clients: number;
    activity: number;
    subscriptions: number;
    setup: number;
    tickets: number;
  }>`
    select
      (select count(*)::int from organizations where site_name = ${siteName}) as organizations,
      (select count(*)::int from users where email = ${email}) as users,
      (select count(*)::int from groups g join organizations o on o.id = g.organization_id
        where o.site_name = ${siteName}) as groups,
      (select count(*)::int from group_members gm join users u on u.id = gm.user_id
        where u.email = ${email}) as members,
      (select count(*)::int from apps a join organizations o on o.id = a.organization_id
        where o.site_name = ${siteName}) as apps,
      (select count(*)::int from oidc_clients c join organizations o on o.id = c.organization_id
        where o.site_name = ${siteName}) as clients,
      (select count(*)::int from activity_log l join organizations o on o.id = l.organization_id
        where o.site_name = ${siteName}) as activity,
      (select count(*)::int from subscriptions s join organizations o on o.id = s.organization_id
        where o.site_name = ${siteName}) as subscriptions,
      (select count(*)::int from organization_setup s join organizations o on o.id = s.organization_id
        where o.site_name = ${siteName}) as setup,
      (select count(*)::int from sign_in_tickets t join users u on u.id = t.user_id
        where u.email = ${email}) as tickets
  `.execute(server.db);
  return rows[0]!;
}

describe('finishing the sign-up', () => {
  it('creates the organisation, admin, Dashboard group, cloud-storage app and setup record, then hands over to SSO', async () => {
    const v = new SignupVisitor(server.app);
    await v.reachAccount(mailbox, 'finished-org', 'Ada@Finished.example');
    const response = await v.account({ firstName: 'Ada', lastName: 'Lovelace', password });
    expect(response.statusCode).toBe(200);
    const { redirectTo } = response.json() as { redirectTo: string };
    const url = new URL(redirectTo, 'http://x');
    expect(url.pathname).toBe('/api/sso/start');
    expect(url.searchParams.get('returnTo')).toBe('/setup');
    expect(url.searchParams.get('ticket')).toMatch(/^[\w-]{20,}$/);
    // The flow is over: its cookie is cleared and a reload starts afresh.
    expect(response.cookies.find((c) => c.name === 'atrium_signup')?.value).toBe('');
    expect((await v.state()).json().stage).toBe('site');

    expect(await madeFor('finished-org', 'ada@finished.example')).toEqual({
      organizations: 1,
      users: 1,
      groups: 1,
      members: 1,
      apps: 1,
      clients: 1,
      // organization.created, and subscription.started (the default plan's trial).
      activity: 2,
      subscriptions: 1,
      setup: 1,
      tickets: 1,
    });
    const admin = await server.db
      .selectFrom('users as u')
      .innerJoin('group_members as gm', 'gm.user_id', 'u.id')
      .innerJoin('groups as g', 'g.id', 'gm.group_id')
      .select(['u.first_name', 'u.last_name', 'u.password_hash', 'g.name', 'g.is_system'])
      .where('u.email', '=', 'ada@finished.example')
      .executeTakeFirstOrThrow();
    expect(admin).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      name: 'Dashboard',
      is_system: true,
    });
    expect(await verifyPassword(admin.password_hash!, password)).toBe(true);
    const setup = await server.db.selectFrom('organization_setup').selectAll().executeTakeFirstOrThrow();
    expect(setup).toMatchObject({ current_step: 'profile', done_steps: [], completed_at: null });
  });

  it('a second submit of the same flow does not create a second organisation', async () => {
    const v = new SignupVisitor(server.app);
    await v.reachAccount(mailbox, 'double-click', 'double@click.example');
    const [a, b] = await Promise.all([v.tab().account({ password }), v.tab().account({ password })]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    expect((await madeFor('double-click', 'double@click.example')).organizations).toBe(1);
  });
});

describe('a failure at the last statement', () => {
  it('leaves no half-made organisation, and the visitor can try again', async () => {
    const v = new SignupVisitor(server.app);
    await v.reachAccount(mailbox, 'rolled-back', 'roll@back.example');
    // The setup record is the transaction's last statement: make exactly it fail.
    await sql`create function fail_setup() returns trigger language plpgsql as
      $$ begin raise exception 'injected failure'; end $$`.execute(server.db);
    await sql`create trigger fail_setup before insert on organization_setup
      for each row execute function fail_setup()`.execute(server.db);
    try {
      const response = await v.account({ password });
      expect(response.statusCode).toBe(500);
      expect(response.json().error).toMatchObject({
        code: 'internal_error',
        message: 'Something went wrong',
      });
      expect(await madeFor('rolled-back', 'roll@back.example')).toEqual({
        organizations: 0,
        users: 0,
        groups: 0,
        members: 0,
        apps: 0,
        clients: 0,
        activity: 0,
        subscriptions: 0,
        setup: 0,
        tickets: 0,
      });
      const orphans = await sql<{ n: number }>`
        select count(*)::int as n from oidc_clients c
        where c.organization_id is not null
          and not exists (select 1 from organizations o where o.id = c.organization_id)`.execute(server.db);
      expect(orphans.rows[0]!.n).toBe(0);
      expect((await v.state()).json()).toMatchObject({ stage: 'account', siteName: 'rolled-back' });
    } finally {
      await sql`drop trigger fail_setup on organization_setup`.execute(server.db);
      await sql`drop function fail_setup()`.execute(server.db);
    }
    const retry = await v.account({ password });
    expect(retry.statusCode).toBe(200);
    expect((await madeFor('rolled-back', 'roll@back.example')).organizations).toBe(1);
  });
});

describe('two visitors racing for one site name', () => {
  it('end with exactly one organisation; the other is told the name is taken', async () => {
    const first = new SignupVisitor(server.app);
    const second = new SignupVisitor(server.app);
    await first.reachAccount(mailbox, 'contested', 'first@race.example');
    await second.reachAccount(mailbox, 'contested', 'second@race.example');
    const responses = await Promise.all([first.account({ password }), second.account({ password })]);
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 409]);
    const loser = responses.find((r) => r.statusCode === 409)!;
    expect(fieldsOf(loser)).toEqual({ siteName: SITE_NAME_TAKEN });
    const orgs = await server.db
      .selectFrom('organizations')
      .select('id')
      .where('site_name', '=', 'contested')
      .execute();
    expect(orgs).toHaveLength(1);
    const users = await server.db
      .selectFrom('users')
      .select('organization_id')
      .where('email', 'in', ['first@race.example', 'second@race.example'])
      .execute();
    expect(users).toEqual([{ organization_id: orgs[0]!.id }]);
    // The loser is back at the site stage with what they entered, to choose another name.
    const loserVisitor = responses[0]!.statusCode === 409 ? first : second;
    expect((await loserVisitor.state()).json()).toMatchObject({ stage: 'site', siteName: 'contested' });
    expect((await loserVisitor.site('Contested Two', 'contested-two')).json().stage).toBe('account');
    expect((await loserVisitor.account({ password })).statusCode).toBe(200);
  });
});
