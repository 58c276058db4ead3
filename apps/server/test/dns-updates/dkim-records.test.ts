import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsClient, type DnsClient } from '../../src/lib/dns.ts';
import { DKIM_RECORD_JOB, queueDkimRecords } from '../../src/modules/dns-updates/dns-updates.service.ts';
import { TestBindServer } from '../support/bind-server.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

const ZONE = 'example.test';
// A 2048-bit RSA key's record is longer than one 255-byte character-string.
const KEY_ONE = `v=DKIM1; k=rsa; p=${'A'.repeat(392)}`;
const KEY_TWO = `v=DKIM1; k=rsa; p=${'B'.repeat(392)}`;

describe('DKIM records of the mail host’s domain (RFC 2136 with TSIG, against BIND)', () => {
  let bind: TestBindServer;
  let dns: DnsClient;
  let server: TestApp;

  beforeAll(async () => {
    bind = await TestBindServer.start(ZONE);
    dns = createDnsClient({ dnsServers: [`127.0.0.1:${bind.port}`], dnsTimeoutMs: 2000 });
    server = await createTestApp({
      env: {
        SITE_BASE_DOMAIN: ZONE,
        MAIL_HOST: `mail.${ZONE}`,
        DNS_UPDATE_TARGET: 'edge.example.net',
        ...bind.env(),
      },
    });
  });

  afterAll(async () => {
    await server?.close();
    await bind?.close();
  });

  it('publishes a key, then rotates it: the new selector is published and the old one removed', async () => {
    await server.db
      .transaction()
      .execute((trx) => queueDkimRecords(trx, server.config, { selector: 'atrium1', value: KEY_ONE }));
    await server.app.jobs.drain();
    expect(await dns.txt(`atrium1._domainkey.${ZONE}`)).toEqual({ status: 'found', records: [KEY_ONE] });

    await server.db.transaction().execute((trx) =>
      queueDkimRecords(trx, server.config, {
        selector: 'atrium2',
        value: KEY_TWO,
        previousSelector: 'atrium1',
        removePreviousAt: new Date(),
      }),
    );
    await server.app.jobs.drain();

    expect(await dns.txt(`atrium2._domainkey.${ZONE}`)).toEqual({ status: 'found', records: [KEY_TWO] });
    expect(await dns.txt(`atrium1._domainkey.${ZONE}`)).toEqual({ status: 'none' });
    const jobs = await server.db
      .selectFrom('jobs')
      .select('status')
      .where('kind', '=', DKIM_RECORD_JOB)
      .execute();
    expect(jobs.map((j) => j.status)).toEqual(['done', 'done', 'done']);
  });
});
