import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { TestSession } from '../support/fixtures.ts';
import { installBody } from './helpers.ts';
import { useAdminWorld } from '../support/admin-world.ts';

// Issue 30 item 5: back-channel logout URIs an admin gives at install and change, judged by the
// address policy before any connection (apps-admin.test.ts has the rest of installing).
const t = useAdminWorld({ org: { siteName: 'acme' } });

const install = (session: TestSession, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/apps', headers: session.headers, payload: body });

describe('back-channel logout URIs on this host or its network (BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS off)', () => {
  /** This host's own (non-loopback) IPv4 address: 192.0.2.2 on the test machines. */
  const ownIPv4 = () =>
    Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .find((i) => i.family === 'IPv4' && !i.internal)!.address;
  const hosts = ['127.1', '0x7f000001', '2130706433', '0177.0.0.1', '127.0.0.1', '[::1]', 'localhost'];
  const put = (appId: string, body: Record<string, unknown>) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/apps/${appId}`,
      headers: t.adminSession.headers,
      payload: body,
    });

  it('refuses loopback in every spelling at install, naming the setting, and installs nothing', async () => {
    const before = await t.db
      .selectFrom('apps')
      .select('id')
      .where('organization_id', '=', t.org.id)
      .execute();
    for (const host of hosts) {
      const res = await install(
        t.adminSession,
        installBody({ title: `Logout ${host}`, backchannelLogoutUri: `http://${host}:8080/logout` }),
      );
      expect(res.statusCode, host).toBe(400);
      const message = res.json().error.fields?.backchannelLogoutUri as string;
      expect(message, host).toMatch(
        /a loopback address: Atrium sends logout tokens there only when the operator sets BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS=true/,
      );
    }
    const after = await t.db
      .selectFrom('apps')
      .select('id')
      .where('organization_id', '=', t.org.id)
      .execute();
    expect(after).toHaveLength(before.length);
  });

  it('refuses private, this host’s and never-reachable addresses, in IPv4 and IPv6 forms; names pass', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        'https://10.0.0.7/logout',
        /10\.0\.0\.7 is a private network address: .*BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS=true/,
      ],
      [
        'https://[::ffff:a00:7]/logout',
        /carries 10\.0\.0\.7, a private network address: .*BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS/,
      ],
      ['https://[::ffff:0:7f00:1]/logout', /carries 127\.0\.0\.1, a loopback address/],
      ['https://[64:ff9b::7f00:1]/logout', /carries 127\.0\.0\.1, a loopback address/],
      ['https://[::7f00:1]/logout', /carries 127\.0\.0\.1, a loopback address/],
      [
        `https://${ownIPv4()}/logout`,
        /is an address of this server: .*BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS=true/,
      ],
      ['https://169.254.169.254/logout', /is a link-local address: Atrium never sends logout tokens there/],
      ['https://203.0.113.9/logout', /is a documentation address .*: Atrium never sends logout tokens there/],
    ];
    for (const [uri, reason] of cases) {
      const res = await install(t.adminSession, installBody({ backchannelLogoutUri: uri }));
      expect(res.statusCode, uri).toBe(400);
      expect(res.json().error.fields?.backchannelLogoutUri, uri).toMatch(reason);
    }
    // A name is judged by what it resolves to when a logout is sent, not at install.
    const named = await install(
      t.adminSession,
      installBody({ backchannelLogoutUri: 'https://wiki.example.com/logout' }),
    );
    expect(named.statusCode).toBe(201);
    const publicAddress = await install(
      t.adminSession,
      installBody({ backchannelLogoutUri: 'https://93.184.216.34/logout' }),
    );
    expect(publicAddress.statusCode).toBe(201);
  });

  it('refuses them when an app is changed too', async () => {
    const { app } = (await install(t.adminSession, installBody({ title: 'Changed' }))).json();
    const body = { ...installBody({ title: 'Changed' }), templateKey: undefined };
    for (const host of hosts) {
      const res = await put(app.id, { ...body, backchannelLogoutUri: `http://${host}:8080/logout` });
      expect(res.statusCode, host).toBe(400);
      expect(res.json().error.fields?.backchannelLogoutUri, host).toMatch(
        /BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS=true/,
      );
    }
    const detail = await t.app.inject({
      method: 'GET',
      url: `/api/apps/${app.id}`,
      headers: t.adminSession.headers,
    });
    expect(detail.json().app.backchannelLogoutUri).toBeNull();
  });
});
