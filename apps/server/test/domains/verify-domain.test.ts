import type { DomainList } from '@atrium/contracts/domains';
import { describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, signInAs } from '../support/fixtures.ts';
import { addDomain, addVerifiedDomain, verify } from './domain-helpers.ts';
import { useAdminWorldWithDns } from '../support/admin-world.ts';

// A short DNS bound keeps the timeout case quick; the message must say how long it waited.
const t = useAdminWorldWithDns({ env: { DNS_TIMEOUT_MS: '500' } });

describe('verifying a domain with its TXT record', () => {
  it('goes from pending to verified once the record is published, and becomes primary', async () => {
    const domain = await addDomain(t.app, t.adminSession, 'verified.example');
    t.dns.set('verified.example', { TXT: ['v=spf1 -all', domain.verificationRecord.value] });
    const { check, domain: after } = await verify(t.app, t.adminSession, domain.id);
    expect(check).toMatchObject({
      outcome: 'verified',
      message: 'verified.example is verified.',
      failure: null,
    });
    expect(after).toMatchObject({ state: 'verified', isPrimary: true, verifiedAt: expect.any(String) });

    const list = (
      await t.app.inject({ url: '/api/domains', headers: t.adminSession.headers })
    ).json<DomainList>();
    expect(list.domains.find((d) => d.id === domain.id)).toMatchObject({
      state: 'verified',
      isPrimary: true,
      lastCheckedAt: expect.any(String),
      lastCheck: { outcome: 'verified' },
    });
    const notifications = await t.db
      .selectFrom('notifications')
      .select(['user_id', 'kind', 'title'])
      .where('organization_id', '=', t.org.id)
      .execute();
    expect(notifications).toEqual([
      { user_id: t.org.admin.id, kind: 'domain.verified', title: 'verified.example is verified' },
    ]);
    const activity = await t.db
      .selectFrom('activity_log')
      .select(['action', 'actor_label', 'target_label'])
      .where('organization_id', '=', t.org.id)
      .where('action', '=', 'domain.verified')
      .execute();
    expect(activity).toEqual([
      { action: 'domain.verified', actor_label: 'Ada Admin', target_label: 'verified.example' },
    ]);
  });

  it('says no TXT record was found, and that DNS changes take time, when there is none', async () => {
    const domain = await addDomain(t.app, t.adminSession, 'norecord.example');
    const { check, domain: after } = await verify(t.app, t.adminSession, domain.id);
    expect(check).toMatchObject({
      outcome: 'no_record',
      message:
        'No TXT record was found at norecord.example. DNS changes can take time to propagate; try again in a few minutes.',
      found: [],
    });
    expect(after.state).toBe('pending');

    // A name that exists with other record types but no TXT (NODATA) reads the same.
    t.dns.set('norecord.example', { MX: [{ exchange: 'mx.example', priority: 10 }] });
    expect((await verify(t.app, t.adminSession, domain.id)).check.outcome).toBe('no_record');
  });

  it('shows what it found when TXT records exist but none matches', async () => {
    const domain = await addDomain(t.app, t.adminSession, 'wrong.example');
    t.dns.set('wrong.example', {
      TXT: ['atrium-verification=not-the-token', 'google-site-verification=abc'],
    });
    const { check, domain: after } = await verify(t.app, t.adminSession, domain.id);
    expect(check.outcome).toBe('mismatch');
    expect(check.found).toEqual(['atrium-verification=not-the-token', 'google-site-verification=abc']);
    expect(check.message).toBe(
      `TXT records were found at wrong.example, but none is ${domain.verificationRecord.value}. ` +
        'Found: "atrium-verification=not-the-token", "google-site-verification=abc".',
    );
    expect(after.state).toBe('pending');
  });

  it('reports a DNS server failure as a failed lookup, saying so', async () => {
    const domain = await addDomain(t.app, t.adminSession, 'servfail.example');
    t.dns.failWithServfail('servfail.example');
    const { check } = await verify(t.app, t.adminSession, domain.id);
    expect(check).toMatchObject({
      outcome: 'lookup_failed',
      failure: 'server_failure',
      message:
        'The DNS lookup for servfail.example failed: the DNS server reported a server failure (SERVFAIL). Try again in a few minutes.',
    });
  });

  it('reports a DNS server that does not answer as a timeout', async () => {
    const domain = await addDomain(t.app, t.adminSession, 'silent.example');
    t.dns.neverAnswer('silent.example');
    const { check, domain: after } = await verify(t.app, t.adminSession, domain.id);
    expect(check).toMatchObject({
      outcome: 'lookup_failed',
      failure: 'timeout',
      message:
        'The DNS lookup for silent.example failed: the DNS server did not answer within 0.5 seconds. Try again in a few minutes.',
    });
    expect(after.lastCheck?.failure).toBe('timeout');
  });

  it('keeps the first primary when a second domain is verified, and lets the admin switch it', async () => {
    const second = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'second.example');
    expect(second.isPrimary).toBe(false);
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/domains/${second.id}/primary`,
      headers: t.adminSession.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().domain).toMatchObject({ name: 'second.example', isPrimary: true });
    const list = (
      await t.app.inject({ url: '/api/domains', headers: t.adminSession.headers })
    ).json<DomainList>();
    expect(list.domains.filter((d) => d.isPrimary).map((d) => d.name)).toEqual(['second.example']);
  });

  it('refuses to make a pending domain primary', async () => {
    const pending = await addDomain(t.app, t.adminSession, 'notyet.example');
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/domains/${pending.id}/primary`,
      headers: t.adminSession.headers,
    });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.message).toBe('Verify notyet.example before making it the primary domain');
  });

  it('does not verify a name another organisation verified first, and does not say which', async () => {
    const first = await createOrganizationWithAdmin(t.db, { siteName: 'first-owner' });
    const firstAdmin = await signInAs(t.db, first.admin);
    // Both add the name while it is still unclaimed; both publish their tokens.
    const mine = await addDomain(t.app, t.adminSession, 'contested.example');
    const theirs = await addDomain(t.app, firstAdmin, 'contested.example');
    t.dns.set('contested.example', { TXT: [mine.verificationRecord.value, theirs.verificationRecord.value] });
    expect((await verify(t.app, firstAdmin, theirs.id)).check.outcome).toBe('verified');
    const { check, domain } = await verify(t.app, t.adminSession, mine.id);
    expect(check.outcome).toBe('mismatch');
    expect(check.message).toBe(
      'contested.example has already been verified by another organisation. A domain can belong to only one organisation.',
    );
    expect(check.message).not.toContain('first-owner');
    expect(domain.state).toBe('pending');
  });

  it('does not verify a name under a domain another organisation verified since it was added', async () => {
    const owner = await signInAs(t.db, (await createOrganizationWithAdmin(t.db)).admin);
    // Added while acme-parent.example was still unclaimed; the other organisation verifies it first.
    const mine = await addDomain(t.app, t.adminSession, 'shop.acme-parent.example');
    const theirs = await addDomain(t.app, owner, 'acme-parent.example');
    t.dns.set('acme-parent.example', { TXT: [theirs.verificationRecord.value] });
    expect((await verify(t.app, owner, theirs.id)).check.outcome).toBe('verified');
    t.dns.set('shop.acme-parent.example', { TXT: [mine.verificationRecord.value] });
    const { check, domain } = await verify(t.app, t.adminSession, mine.id);
    expect(check.outcome).toBe('mismatch');
    expect(check.message).toBe(
      'shop.acme-parent.example is under a domain another organisation has verified; names under it belong to that organisation.',
    );
    expect(domain.state).toBe('pending');
  });
});
