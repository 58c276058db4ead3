import type { DomainList } from '@atrium/contracts/domains';
import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret, deriveKey } from '../../src/lib/crypto.ts';
import { useAdminWorldWithDns } from '../support/admin-world.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { addDomain, addVerifiedDomain } from './domain-helpers.ts';

const t = useAdminWorldWithDns({
  env: { SITE_BASE_DOMAIN: 'atrium.test', MAX_DOMAINS_PER_ORGANIZATION: '3' },
});

async function post(session: TestSession, name: string) {
  return t.app.inject({ method: 'POST', url: '/api/domains', headers: session.headers, payload: { name } });
}

describe('adding a domain', () => {
  it.each([
    ['exa mple.com', 'A domain name cannot contain spaces'],
    ['1.2.3.4', 'Enter a domain name, not an IP address'],
    ['[::1]', 'Enter a domain name, not an IP address'],
    ['localhost', 'localhost cannot be used; enter a domain your organisation owns'],
    [
      'a..b.com',
      'A domain name cannot have an empty label: remove the extra dot (two dots in a row, or a dot at the start)',
    ],
    [
      `${'a'.repeat(60)}.`.repeat(4) + `${'b'.repeat(52)}.com`,
      'A domain name can be at most 253 characters; this one has 300',
    ],
    ['com', 'Enter a full domain name with at least two labels, such as example.com'],
    [
      `${'x'.repeat(64)}.com`,
      `Each label of a domain name can be at most 63 characters; "${'x'.repeat(20)}…" has 64`,
    ],
    [
      'under_score.com',
      'Use only letters, digits and hyphens in a domain name; "under_score" has other characters',
    ],
    ['-dash.com', 'A label cannot start or end with a hyphen: "-dash"'],
    [
      'https://example.com/path',
      'Enter only the domain name, such as example.com, without http://, a path or an @',
    ],
    [
      'site.atrium.test',
      'Names under atrium.test belong to this service; enter a domain your organisation owns',
    ],
    ['example.123', 'The last label of a domain cannot be a number; enter a domain name, not an IP address'],
    ['   ', 'Enter a domain name, such as example.com'],
  ])('refuses %j with a message naming the problem', async (name, message) => {
    const response = await post(t.adminSession, name);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: { code: 'validation_failed', fields: { name: message } },
    });
  });

  it('normalises EXAMPLE.COM. to example.com and shows the TXT record to publish', async () => {
    const domain = await addDomain(t.app, t.adminSession, 'EXAMPLE.COM.');
    expect(domain).toMatchObject({
      name: 'example.com',
      displayName: 'example.com',
      state: 'pending',
      isPrimary: false,
    });
    expect(domain.verificationRecord).toEqual({
      host: 'example.com',
      type: 'TXT',
      value: expect.stringMatching(/^atrium-verification=[a-z2-7]{32}$/),
    });
    // The same name again, typed differently, is the same domain.
    const again = await post(t.adminSession, 'Example.com');
    expect(again.statusCode).toBe(400);
    expect(again.json().error.fields.name).toBe('example.com has already been added');
  });

  it('stores bücher.de as punycode and shows it in Unicode', async () => {
    const domain = await addDomain(t.app, t.adminSession, 'Bücher.de');
    expect(domain).toMatchObject({ name: 'xn--bcher-kva.de', displayName: 'bücher.de' });
    const row = await t.db
      .selectFrom('domains')
      .select('name')
      .where('id', '=', domain.id)
      .executeTakeFirstOrThrow();
    expect(row.name).toBe('xn--bcher-kva.de');
    const list = (
      await t.app.inject({ url: '/api/domains', headers: t.adminSession.headers })
    ).json<DomainList>();
    expect(list.domains.find((d) => d.id === domain.id)?.displayName).toBe('bücher.de');
  });

  it('keeps a per-domain RSA-2048 DKIM key, the private half encrypted at rest', async () => {
    const domain = await addDomain(t.app, t.adminSession, 'dkim.example');
    const row = await t.db
      .selectFrom('domains')
      .select(['dkim_private_key_enc', 'dkim_public_key'])
      .where('id', '=', domain.id)
      .executeTakeFirstOrThrow();
    expect(row.dkim_private_key_enc).not.toContain('PRIVATE KEY');
    const pem = decryptSecret(deriveKey(t.config.secret, 'dkim'), row.dkim_private_key_enc);
    expect(pem).toContain('-----BEGIN PRIVATE KEY-----');
    const publicKey = createPublicKey(pem);
    expect(publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(publicKey.export({ type: 'spki', format: 'der' }).toString('base64')).toBe(row.dkim_public_key);
  });

  it('refuses more domains than MAX_DOMAINS_PER_ORGANIZATION', async () => {
    // example.com, bücher.de and dkim.example are already there; the limit is 3.
    const response = await post(t.adminSession, 'fourth.example');
    expect(response.statusCode).toBe(409);
    expect(response.json().error).toMatchObject({
      code: 'domain_limit',
      message: 'Your organisation already has 3 domains, the most allowed (3). Delete one first.',
    });
  });

  it('refuses a domain another organisation has verified, without naming it', async () => {
    const owner = await createOrganizationWithAdmin(t.db, { siteName: 'owner-org' });
    const ownerSession = await signInAs(t.db, owner.admin);
    await addVerifiedDomain(t.app, ownerSession, t.dns, 'taken.example');
    const other = await createOrganizationWithAdmin(t.db, { siteName: 'other-org' });
    const response = await post(await signInAs(t.db, other.admin), 'TAKEN.example');
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.error.fields.name).toBe(
      'taken.example is already verified by another organisation; a domain can belong to only one organisation',
    );
    expect(JSON.stringify(body)).not.toContain('owner-org');
  });

  it('refuses a name under a domain another organisation has verified, at any depth', async () => {
    const owner = await createOrganizationWithAdmin(t.db, { siteName: 'parent-owner' });
    const ownerSession = await signInAs(t.db, owner.admin);
    await addVerifiedDomain(t.app, ownerSession, t.dns, 'parent.example');
    const other = await signInAs(t.db, (await createOrganizationWithAdmin(t.db)).admin);
    for (const name of ['sub.parent.example', 'a.b.Parent.example']) {
      const response = await post(other, name);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({
        code: 'domain_taken',
        fields: {
          name: `${name.toLowerCase()} is under a domain another organisation has verified; names under it belong to that organisation`,
        },
      });
      expect(response.body).not.toContain('parent-owner');
    }
    // A name that merely ends the same way is not under it; the owner may add its own subdomains.
    expect((await post(other, 'notparent.example')).statusCode).toBe(201);
    expect((await post(ownerSession, 'mail.parent.example')).statusCode).toBe(201);
  });

  it('is for admins only', async () => {
    const org = await createOrganizationWithAdmin(t.db);
    const member = await signInAs(t.db, await createUser(t.db, org.id));
    expect((await post(member, 'member.example')).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/domains', headers: member.headers })).statusCode).toBe(403);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/domains',
      payload: { name: 'x.example' },
    });
    expect(anonymous.statusCode).toBe(401);
  });
});
