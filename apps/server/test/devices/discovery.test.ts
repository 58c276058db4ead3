import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { useAdminWorldWithDns } from '../support/admin-world.ts';
import { addDomain, addVerifiedDomain } from '../domains/domain-helpers.ts';

const t = useAdminWorldWithDns({
  env: { SITE_BASE_DOMAIN: 'atrium.test', MAIL_HOST: 'mail.atrium.test' },
  org: { siteName: 'acme' },
});

/** A real XML parser: well-formedness first, then elements and attributes (`@_name`). */
const parse = (xml: string) => {
  expect(XMLValidator.validate(xml)).toBe(true);
  return new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(xml);
};

beforeAll(async () => {
  await addVerifiedDomain(t.app, t.adminSession, t.dns, 'acme.example');
  await addDomain(t.app, t.adminSession, 'pending.example');
});

describe('.well-known (RFC 6764)', () => {
  it('sends CalDAV and CardDAV clients to the DAV server, for GET and PROPFIND', async () => {
    for (const service of ['caldav', 'carddav']) {
      for (const method of ['GET', 'PROPFIND'] as const) {
        // Asked on an organisation's domain: MAIL_HOST's address.
        const response = await t.app.inject({
          method,
          url: `/.well-known/${service}`,
          headers: { host: 'acme.example' },
        });
        expect(response.statusCode).toBe(301);
        expect(response.headers.location).toBe('https://mail.atrium.test/dav/');
        // Asked on MAIL_HOST: the path, so the client keeps the port it came to.
        const onMailHost = await t.app.inject({
          method,
          url: `/.well-known/${service}`,
          headers: { host: 'mail.atrium.test:8443' },
        });
        expect(onMailHost.statusCode).toBe(301);
        expect(onMailHost.headers.location).toBe('/dav/');
      }
    }
  });
});

describe('Thunderbird autoconfig', () => {
  it('describes IMAP, submission, CalDAV and CardDAV for any address of a verified domain', async () => {
    for (const url of [
      '/mail/config-v1.1.xml?emailaddress=nobody-here%40acme.example',
      '/.well-known/autoconfig/mail/config-v1.1.xml?emailaddress=Ada%40ACME.example',
    ]) {
      const response = await t.app.inject({ url });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toBe('application/xml; charset=utf-8');
      const { clientConfig } = parse(response.body);
      expect(clientConfig['@_version']).toBe('1.1');
      const provider = clientConfig.emailProvider;
      expect(provider['@_id']).toBe('acme.example');
      expect(provider.domain).toBe('acme.example');
      expect(provider.incomingServer).toMatchObject({
        '@_type': 'imap',
        hostname: 'mail.atrium.test',
        port: '993',
        socketType: 'SSL',
        username: '%EMAILADDRESS%',
        authentication: 'password-cleartext',
      });
      expect(provider.outgoingServer).toMatchObject({
        '@_type': 'smtp',
        hostname: 'mail.atrium.test',
        port: '587',
        socketType: 'STARTTLS',
        username: '%EMAILADDRESS%',
      });
      // The person's address books, then the organisation's directory alone.
      expect(clientConfig.addressBook).toMatchObject([
        { '@_type': 'carddav', serverURL: 'https://mail.atrium.test/dav/', authentication: 'http-basic' },
        {
          '@_type': 'carddav',
          serverURL: 'https://mail.atrium.test/dav/principals/organisation-directory/',
          username: '%EMAILADDRESS%',
          authentication: 'http-basic',
        },
      ]);
      expect(response.body).toContain("<!-- The organisation's directory");
      expect(clientConfig.calendar).toMatchObject({
        '@_type': 'caldav',
        serverURL: 'https://mail.atrium.test/dav/',
      });
    }
  });

  it('answers the same whether or not the mailbox exists', async () => {
    const known = await t.app.inject({ url: `/mail/config-v1.1.xml?emailaddress=${t.org.admin.email}` });
    const unknown = await t.app.inject({ url: '/mail/config-v1.1.xml?emailaddress=ghost%40acme.example' });
    // The admin's address is on the site's domain, not acme.example: ask about acme.example both times.
    const ada = await t.app.inject({ url: '/mail/config-v1.1.xml?emailaddress=ada%40acme.example' });
    expect(unknown.body).toBe(ada.body);
    expect(known.statusCode).toBe(404);
  });

  it('takes the domain from the autoconfig host name when no address is given', async () => {
    const response = await t.app.inject({
      url: '/mail/config-v1.1.xml',
      headers: { host: 'autoconfig.acme.example' },
    });
    expect(response.statusCode).toBe(200);
    expect(parse(response.body).clientConfig.emailProvider.domain).toBe('acme.example');
  });

  it('is 404 for an unverified or unknown domain, and 400 for something that is not an address', async () => {
    for (const address of ['ada@pending.example', 'ada@unknown.example']) {
      const response = await t.app.inject({
        url: `/mail/config-v1.1.xml?emailaddress=${encodeURIComponent(address)}`,
      });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
    const bad = await t.app.inject({ url: '/mail/config-v1.1.xml?emailaddress=not-an-address' });
    expect(bad.statusCode).toBe(400);
  });
});

const autodiscoverRequest = (email: string) => `<?xml version="1.0" encoding="utf-8"?>
<Autodiscover xmlns="http://schemas.microsoft.com/exchange/autodiscover/outlook/requestschema/2006">
  <Request>
    <EMailAddress>${email}</EMailAddress>
    <AcceptableResponseSchema>http://schemas.microsoft.com/exchange/autodiscover/outlook/responseschema/2006a</AcceptableResponseSchema>
  </Request>
</Autodiscover>`;

describe('Outlook Autodiscover (POX)', () => {
  it('answers the 2006a schema with IMAP, SMTP, CalDAV and CardDAV for an address of a verified domain', async () => {
    for (const url of ['/autodiscover/autodiscover.xml', '/Autodiscover/Autodiscover.xml']) {
      const response = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'text/xml; charset=utf-8' },
        payload: autodiscoverRequest('ada@acme.example'),
      });
      expect(response.statusCode, response.body).toBe(200);
      const document = parse(response.body);
      expect(document.Autodiscover['@_xmlns']).toBe(
        'http://schemas.microsoft.com/exchange/autodiscover/responseschema/2006',
      );
      const { Response } = document.Autodiscover;
      expect(Response['@_xmlns']).toBe(
        'http://schemas.microsoft.com/exchange/autodiscover/outlook/responseschema/2006a',
      );
      expect(Response.Account).toMatchObject({ AccountType: 'email', Action: 'settings' });
      const [imap, smtp, caldav, carddav, directory] = Response.Account.Protocol;
      expect(Response.Account.Protocol).toHaveLength(5);
      expect(imap).toMatchObject({
        Type: 'IMAP',
        Server: 'mail.atrium.test',
        Port: '993',
        LoginName: 'ada@acme.example',
        SSL: 'on',
        Encryption: 'SSL',
      });
      expect(smtp).toMatchObject({
        Type: 'SMTP',
        Server: 'mail.atrium.test',
        Port: '587',
        LoginName: 'ada@acme.example',
        Encryption: 'TLS',
        AuthRequired: 'on',
      });
      for (const [dav, type] of [
        [caldav, 'CalDAV'],
        [carddav, 'CardDAV'],
      ]) {
        expect(dav).toEqual({
          Type: type,
          Server: 'https://mail.atrium.test/dav/',
          DomainRequired: 'off',
          LoginName: 'ada@acme.example',
        });
      }
      expect(directory).toEqual({
        Type: 'CardDAV',
        Server: 'https://mail.atrium.test/dav/principals/organisation-directory/',
        DomainRequired: 'off',
        LoginName: 'ada@acme.example',
      });
    }
  });

  it('answers a GET with the address in the query', async () => {
    const response = await t.app.inject({
      url: '/autodiscover/autodiscover.xml?emailaddress=ada%40acme.example',
    });
    expect(response.statusCode).toBe(200);
    expect(parse(response.body).Autodiscover.Response.Account.Protocol[0].Server).toBe('mail.atrium.test');
  });

  it('is 404 for an unverified domain, and 400 with a clear message for bad XML', async () => {
    const post = (payload: string) =>
      t.app.inject({
        method: 'POST',
        url: '/autodiscover/autodiscover.xml',
        headers: { 'content-type': 'text/xml' },
        payload,
      });
    expect((await post(autodiscoverRequest('ada@pending.example'))).statusCode).toBe(404);
    const broken = await post('<Autodiscover><Request><EMailAddress>ada@acme.example</Request>');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error.message).toMatch(/^The request is not well-formed XML: .+ \(line \d+\)$/);
    const noAddress = await post('<Autodiscover><Request></Request></Autodiscover>');
    expect(noAddress.json().error.message).toBe('The request has no <EMailAddress>');
    const entity = await post('<!DOCTYPE x [<!ENTITY a "b">]><Autodiscover/>');
    expect(entity.json().error.message).toBe('A document type declaration is not accepted');
  });

  it('is rate limited per client address', async () => {
    let last = 0;
    for (let i = 0; i < 61; i++) {
      last = (await t.app.inject({ url: '/.well-known/caldav', remoteAddress: '203.0.113.9' })).statusCode;
    }
    expect(last).toBe(429);
  });
});
