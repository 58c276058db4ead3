import { createOrganization } from '../apps/server/src/modules/organizations/create-organization.ts';
import { signInAs } from '../apps/server/test/support/fixtures.ts';
import { createTestApp } from '../apps/server/test/support/test-app.ts';

/**
 * What the page scripts (lighthouse.ts, screenshots.ts) show: a listening Atrium on a fresh
 * database, unverified domains allowed, with Acme Ltd and its admin Ada Lovelace signed in.
 */
export async function startAcmeAtrium() {
  const atrium = await createTestApp({ env: { ALLOW_UNVERIFIED_DOMAINS: 'true' }, listen: true });
  const created = await createOrganization(atrium.db, atrium.config, {
    name: 'Acme Ltd',
    siteName: 'acme',
    admin: { email: 'ada@acme.example', firstName: 'Ada', lastName: 'Lovelace', passwordHash: null },
  });
  const admin = {
    id: created.adminUserId,
    email: 'ada@acme.example',
    organizationId: created.organizationId,
  };
  const session = await signInAs(atrium.db, admin);
  return { atrium, origin: atrium.config.publicUrl.origin, created, admin, session };
}
