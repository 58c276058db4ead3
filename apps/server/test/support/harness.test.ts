import { Resolver } from 'node:dns/promises';
import nodemailer from 'nodemailer';
import { expect, it } from 'vitest';
import { TestDnsServer } from './dns-server.ts';
import { Mailbox } from './mailbox.ts';
it('serves DNS records and failures, and receives SMTP mail with its code', async () => {
  const dns = await TestDnsServer.start();
  dns.set('example.org', {
    TXT: ['atrium-verification=abc', 'v=DKIM1; k=rsa; p=' + 'A'.repeat(400)],
    MX: [{ exchange: 'mail.x.test', priority: 10 }],
  });
  dns.set('www.example.org', { CNAME: 'site.x.test' });
  dns.failWithServfail('bad.org');
  dns.neverAnswer('slow.org');
  const r = new Resolver({ timeout: 500, tries: 1 });
  r.setServers([dns.address]);
  const txt = await r.resolveTxt('example.org');
  expect(txt.map((c) => c.join(''))).toContain('atrium-verification=abc');
  expect(txt.map((c) => c.join('')).find((t) => t.startsWith('v=DKIM1'))?.length).toBe(418);
  expect(await r.resolveMx('example.org')).toMatchObject([{ exchange: 'mail.x.test', priority: 10 }]);
  expect(await r.resolveCname('www.example.org')).toEqual(['site.x.test']);
  await expect(r.resolveTxt('nothing.org')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  await expect(r.resolveTxt('bad.org')).rejects.toMatchObject({ code: 'ESERVFAIL' });
  await expect(r.resolveTxt('slow.org')).rejects.toMatchObject({ code: 'ETIMEOUT' });
  await dns.close();
  const box = await Mailbox.start();
  const t = nodemailer.createTransport(box.url);
  await t.sendMail({
    from: 'a@b.c',
    to: 'X@Example.com',
    subject: 'Your code ü',
    text: 'Your code is 123456.\n' + 'long '.repeat(40),
    html: '<p>123456</p>',
  });
  expect(await box.waitForCode('x@example.com')).toBe('123456');
  expect((await box.waitFor('x@example.com')).subject).toBe('Your code ü');
  await box.close();
});
