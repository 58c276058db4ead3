import type { Dashboard } from '@atrium/contracts/dashboard';
import type { DnsMapping } from '@atrium/contracts/domains';
import { randomInt } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { quotaCloneCommit } from '../../server/src/modules/mail/lookups/dovecot-quota-clone.ts';
import type { TestDnsServer, ZoneRecords } from '../../server/test/support/dns-server.ts';
import { screenshotAndAxe } from './support/accessibility.ts';
import { insertVerifiedDomain } from './support/domains.ts';
import { SCREENSHOTS } from './support/screenshots.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';

// Issue 42, item 2: the setup checklist and the dashboard tell the truth about mail. With mail set
// up on this server (Postfix's socketmap and Dovecot's dict ask Atrium, here on loopback addresses
// of its own), "Publish your mail records" stays open, saying how many records are missing, until
// a look-up finds every record (the loopback DNS server), and "Mail is flowing" until a mailbox of
// the organisation reports its first message (Dovecot's quota_clone, written as Dovecot does).
// "Every setup step is done" only then.
const shots = path.join(SCREENSHOTS, 'setup-mail-steps');
const socketmap = `127.${randomInt(1, 254)}.${randomInt(1, 254)}.${randomInt(1, 254)}:${randomInt(20000, 60000)}`;
const dictSocket = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-e2e-dict-')), 'dict.sock');
// A mail host with a real name: SPF's include: of `mail.127.0.0.1` (the default beside an
// address-only PUBLIC_URL) never evaluates, as its last label is a number.
test.use({
  atriumEnv: {
    MAIL_SOCKETMAP_ADDRESS: socketmap,
    MAIL_DICT_SOCKET: dictSocket,
    MAIL_HOST: 'mail.atrium.test',
  },
});

/** Every record of the domain page's mapping published on the loopback DNS server. */
function publishAll(dns: TestDnsServer, mapping: DnsMapping): void {
  const zone = new Map<string, ZoneRecords>();
  const at = (host: string) => zone.get(host) ?? zone.set(host, {}).get(host)!;
  for (const record of mapping.records) {
    const entry = at(record.host);
    const parts = record.value.split(' ');
    if (record.type === 'MX') entry.MX = [{ priority: Number(parts[0]), exchange: parts[1]! }];
    if (record.type === 'TXT') entry.TXT = [...(entry.TXT ?? []), record.value];
    if (record.type === 'CNAME') entry.CNAME = record.value;
    if (record.type === 'SRV') {
      const [priority, weight, port, target] = parts;
      entry.SRV = [
        { priority: Number(priority), weight: Number(weight), port: Number(port), target: target! },
      ];
    }
  }
  for (const [host, records] of zone) dns.set(host, records);
}

for (const width of [375, 1280] as const) {
  test(`at ${width} px the checklist keeps the mail steps open until the records are found and mail arrives`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const shot = await screenshotAndAxe(page, shots, width);
    // Made without the wizard: every wizard step reads as done, so only the mail steps can be open.
    const org = await createOrganizationWithAdmin(atrium.db);
    const name = `mailsteps-${width}-${Date.now().toString(36)}.example`;
    const { id } = await insertVerifiedDomain(atrium, org.id, name, { primary: true });
    // The mail host's own address and SPF record are the operator's, published at install (and
    // before the first look-up: a look-up's answers, missing ones too, are kept for a while).
    atrium.dns.set(atrium.config.mailHost, { A: ['127.0.0.1'], TXT: ['v=spf1 a -all'] });
    await signInAs(org.admin);

    await page.goto('/dashboard');
    const checklist = page.getByTestId('setup-checklist');
    const records = checklist.getByTestId('setup-step-mail_records');
    const flowing = checklist.getByTestId('setup-step-mail_flowing');
    await expect(records).toContainText('Publish your mail records (not done yet)');
    await expect(records).toContainText(`The records of ${name} have not been checked yet.`);
    await expect(flowing).toContainText('Mail is flowing (not done yet)');
    await expect(checklist.getByText('Every setup step is done.')).toHaveCount(0);
    await shot('records-not-checked', checklist);

    // "Open records": the domain page at its records, looked up now (nothing published yet).
    await records.getByRole('link', { name: /^Open records\s*: Publish your mail records$/ }).click();
    await expect(page).toHaveURL(new RegExp(`/d-verify\\?id=${id}#dns-mapping$`));
    const section = page.getByRole('region', { name: 'DNS mapping' });
    await expect(section.getByText('0 of 11 records in place')).toBeVisible();
    await expect(section).toBeInViewport();

    await page.goto('/dashboard');
    await expect(records).toContainText(`11 of 11 records are not published yet for ${name}.`);
    await expect(checklist.getByText('Every setup step is done.')).toHaveCount(0);
    await shot('records-missing', checklist);

    // The admin publishes every record and checks them all again on the domain page.
    const mapping = await page.request.get(`/api/domains/${id}/dns-records`);
    expect(mapping.ok()).toBe(true);
    publishAll(atrium.dns, (await mapping.json()) as DnsMapping);
    await page.goto(`/d-verify?id=${id}#dns-mapping`);
    await section.getByRole('button', { name: 'Check all records now' }).click();
    await expect(section.getByText('11 of 11 records in place')).toBeVisible();

    // Records done; mail has not arrived yet, so setup is not done.
    await page.goto('/dashboard');
    await expect(records).toContainText('Publish your mail records (done)');
    await expect(records).toContainText(`Every record is in place for ${name}.`);
    await expect(records.getByRole('link')).toHaveCount(0);
    await expect(flowing).toContainText('Mail is flowing (not done yet)');
    await expect(checklist.getByText('Every setup step is done.')).toHaveCount(0);
    await shot('waiting-for-mail', checklist);

    // The first message lands in a mailbox of the domain: Dovecot's quota_clone reports it.
    const user = await createUser(atrium.db, org.id, { email: `mia@${name}` });
    expect(
      await quotaCloneCommit(atrium.db)(
        user.email,
        new Map([
          ['priv/quota/storage', '2048'],
          ['priv/quota/messages', '1'],
        ]),
      ),
    ).toEqual({ ok: true });

    await page.reload();
    await expect(checklist.getByText('Every setup step is done.')).toBeVisible();
    const overview = (await (await page.request.get('/api/dashboard')).json()) as Dashboard;
    expect(overview.setup.mailSteps.map((step) => [step.step, step.done])).toEqual([
      ['mail_records', true],
      ['mail_flowing', true],
    ]);
    await shot('all-done');
  });
}
