import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { purgeExpiredIdentityData } from '../../src/modules/auth/identity-cleanup.ts';
import { signInAs } from '../support/fixtures.ts';
import { useOrganizationWorld } from '../support/admin-world.ts';

describe('purging expired identity data', () => {
  const server = useOrganizationWorld();

  it('deletes expired provider models and console sessions and keeps live ones', async () => {
    const row = (id: string, expires: string) => ({
      id,
      type: 'Session',
      payload: JSON.stringify({ accountId: server.org.admin.id }),
      expires_at: sql`now() + ${expires}::interval` as never,
    });
    await server.db
      .insertInto('oidc_payloads')
      .values([row('old', '-1 minute'), row('live', '1 hour')])
      .execute();
    const expired = await signInAs(server.db, server.org.admin);
    const live = await signInAs(server.db, server.org.admin);
    await server.db
      .updateTable('console_sessions')
      .set({ expires_at: sql`now() - interval '1 second'` })
      .where('csrf_token', '=', expired.csrfToken)
      .execute();

    await purgeExpiredIdentityData(server.db);

    const ids = (await server.db.selectFrom('oidc_payloads').select('id').execute()).map((r) => r.id);
    expect(ids).toContain('live');
    expect(ids).not.toContain('old');
    const tokens = (await server.db.selectFrom('console_sessions').select('csrf_token').execute()).map(
      (r) => r.csrf_token,
    );
    expect(tokens).toContain(live.csrfToken);
    expect(tokens).not.toContain(expired.csrfToken);
  });
});
