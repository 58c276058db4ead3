import type { DomainDetail } from '@atrium/contracts/domains';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDnsClient } from '../../src/lib/dns.ts';
import {
  createDomainRecheckJob,
  type DomainRecheckJob,
} from '../../src/modules/domains/domain-recheck.job.ts';
import { createUser } from '../support/fixtures.ts';
import { addDomain } from './domain-helpers.ts';
import { useAdminWorldWithDns } from '../support/admin-world.ts';

const t = useAdminWorldWithDns({ env: { DNS_TIMEOUT_MS: '500' } });
let secondAdminId: string;

/** A job as one server process would run it. */
function job(): DomainRecheckJob {
  return createDomainRecheckJob({
    db: t.db,
    config: t.config,
    dns: createDnsClient(t.config),
    log: t.app.log,
  });
}

/** Makes the domains due now, as if the re-check interval had passed. */
async function makeDue(...domains: DomainDetail[]) {
  await t.db
    .updateTable('domains')
    .set({ next_check_at: sql<Date>`now() - interval '1 second'` })
    .where(
      'id',
      'in',
      domains.map((d) => d.id),
    )
    .execute();
}

async function stateOf(domain: DomainDetail) {
  const row = await t.db
    .selectFrom('domains')
    .select(['state', 'is_primary'])
    .where('id', '=', domain.id)
    .executeTakeFirstOrThrow();
  return row;
}

beforeAll(async () => {
  const second = await createUser(t.db, t.org.id, { firstName: 'Sam', lastName: 'Second' });
  await t.db
    .insertInto('group_members')
    .values({ group_id: t.org.dashboardGroupId, user_id: second.id, organization_id: t.org.id })
    .execute();
  secondAdminId = second.id;
});

describe('background re-check of pending domains', () => {
  it('waits for the interval, then verifies a domain once its record appears and tells every admin', async () => {
    const domain = await addDomain(t.app, t.adminSession, 'later.example');
    // Just added: not due yet.
    expect(await job().runOnce()).toEqual({ checked: 0, verified: 0, failed: 0 });

    await makeDue(domain);
    expect(await job().runOnce()).toEqual({ checked: 1, verified: 0, failed: 0 });
    expect(await stateOf(domain)).toEqual({ state: 'pending', is_primary: false });
    // Checked once: it is not due again until the interval has passed.
    expect(await job().runOnce()).toMatchObject({ checked: 0 });

    t.dns.set('later.example', { TXT: [domain.verificationRecord.value] });
    await makeDue(domain);
    expect(await job().runOnce()).toEqual({ checked: 1, verified: 1, failed: 0 });
    expect(await stateOf(domain)).toEqual({ state: 'verified', is_primary: true });

    const notified = await t.db
      .selectFrom('notifications')
      .select(['user_id', 'kind', 'title', 'link'])
      .where('organization_id', '=', t.org.id)
      .orderBy('user_id')
      .execute();
    expect(notified).toEqual(
      [t.org.admin.id, secondAdminId].sort().map((user_id) => ({
        user_id,
        kind: 'domain.verified',
        title: 'later.example is verified',
        link: '/domain',
      })),
    );
    const activity = await t.db
      .selectFrom('activity_log')
      .select(['actor_user_id', 'actor_label', 'action', 'target_label'])
      .where('organization_id', '=', t.org.id)
      .where('action', '=', 'domain.verified')
      .execute();
    expect(activity).toEqual([
      {
        actor_user_id: null,
        actor_label: 'System',
        action: 'domain.verified',
        target_label: 'later.example',
      },
    ]);
    // The list shows the background check's outcome.
    const list = await t.app.inject({ url: '/api/domains', headers: t.adminSession.headers });
    expect(list.json().domains[0]).toMatchObject({
      name: 'later.example',
      state: 'verified',
      lastCheck: { outcome: 'verified' },
    });
  });

  it('checks each due domain once when several processes run at the same time', async () => {
    const names = ['p1.example', 'p2.example', 'p3.example', 'p4.example', 'p5.example'];
    const domains: DomainDetail[] = [];
    for (const name of names) domains.push(await addDomain(t.app, t.adminSession, name));
    for (const d of domains) t.dns.set(d.name, { TXT: [d.verificationRecord.value] });
    await makeDue(...domains);

    const results = await Promise.all([job().runOnce(), job().runOnce(), job().runOnce()]);
    expect(results.reduce((sum, r) => sum + r.checked, 0)).toBe(5);
    expect(results.reduce((sum, r) => sum + r.verified, 0)).toBe(5);
    const verifiedActivity = await t.db
      .selectFrom('activity_log')
      .select(['target_label'])
      .where('organization_id', '=', t.org.id)
      .where('action', '=', 'domain.verified')
      .where('target_label', 'in', names)
      .orderBy('target_label')
      .execute();
    expect(verifiedActivity.map((a) => a.target_label)).toEqual(names);
  });

  it('gives up after 7 days: the domain fails and the admins are told', async () => {
    const domain = await addDomain(t.app, t.adminSession, 'never.example');
    await t.db
      .updateTable('domains')
      .set({ created_at: sql<Date>`now() - interval '7 days 1 minute'`, next_check_at: sql<Date>`now()` })
      .where('id', '=', domain.id)
      .execute();
    const [first, second] = await Promise.all([job().runOnce(), job().runOnce()]);
    expect(first!.failed + second!.failed).toBe(1);
    expect(first!.checked + second!.checked).toBe(0);
    expect((await stateOf(domain)).state).toBe('failed');
    const notified = await t.db
      .selectFrom('notifications')
      .select(['title', 'body'])
      .where('organization_id', '=', t.org.id)
      .where('kind', '=', 'domain.failed')
      .where('user_id', '=', t.org.admin.id)
      .execute();
    expect(notified).toEqual([
      {
        title: 'never.example could not be verified',
        body: 'Its TXT record was not found within 7 days. Check the record and press Verify, or delete the domain.',
      },
    ]);

    // The admin can still verify it by hand once the record is there.
    t.dns.set('never.example', { TXT: [domain.verificationRecord.value] });
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/domains/${domain.id}/verify`,
      headers: t.adminSession.headers,
    });
    expect(response.json()).toMatchObject({ check: { outcome: 'verified' }, domain: { state: 'verified' } });
  });
});
