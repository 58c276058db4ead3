import type { Dashboard } from '@atrium/contracts/dashboard';
import type { DnsMapping } from '@atrium/contracts/domains';
import path from 'node:path';
import { sendMail } from '../../server/test/mail/mail-world.ts';
import type { TestDnsServer, ZoneRecords } from '../../server/test/support/dns-server.ts';
import { screenshotAndAxe } from './support/accessibility.ts';
import { insertVerifiedDomain } from './support/domains.ts';
import { SCREENSHOTS } from './support/screenshots.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';
import { appPassword } from './support/mail.ts';

// Issue 42, item 2: the setup checklist and the dashboard tell the truth about mail. With mail set
// up on this server (Debian's Postfix and Dovecot on loopback, asking this Atrium), "Publish your
// mail records" stays open, saying how many records are missing, until a look-up finds every
// record (the loopback DNS server), and "Mail is flowing" until another server hands Postfix a
// message on port 25: a message between two colleagues (submission) does not count. "Every setup
// step is done" only then. The mail servers' host has a real name (mail.atrium.test): SPF's
// include: of `mail.127.0.0.1` never evaluates, as its last label is a number.
const shots = path.join(SCREENSHOTS, 'setup-mail-steps');
test.use({ atriumMail: true });

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
    await expect(section.getByText('0 of 14 records in place')).toBeVisible();
    await expect(section).toBeInViewport();

    await page.goto('/dashboard');
    await expect(records).toContainText(`14 of 14 records are not published yet for ${name}.`);
    await expect(checklist.getByText('Every setup step is done.')).toHaveCount(0);
    await shot('records-missing', checklist);

    // The admin publishes every record and checks them all again on the domain page.
    const mapping = await page.request.get(`/api/domains/${id}/dns-records`);
    expect(mapping.ok()).toBe(true);
    publishAll(atrium.dns, (await mapping.json()) as DnsMapping);
    await page.goto(`/d-verify?id=${id}#dns-mapping`);
    await section.getByRole('button', { name: 'Check all records now' }).click();
    await expect(section.getByText('14 of 14 records in place')).toBeVisible();

    // Records done; mail has not arrived yet, so setup is not done.
    await page.goto('/dashboard');
    await expect(records).toContainText('Publish your mail records (done)');
    await expect(records).toContainText(`Every record is in place for ${name}.`);
    await expect(records.getByRole('link')).toHaveCount(0);
    await expect(flowing).toContainText('Mail is flowing (not done yet)');
    await expect(checklist.getByText('Every setup step is done.')).toHaveCount(0);
    await shot('waiting-for-mail', checklist);

    // Two colleagues write to each other (submission, signed in with an app password): the
    // message is delivered, but nothing has come from outside yet.
    const mia = await createUser(atrium.db, org.id, { email: `mia@${name}` });
    const noel = await createUser(atrium.db, org.id, { email: `noel@${name}` });
    const mail = { mail: atrium.mail! };
    await sendMail(
      mail,
      { from: mia.email, to: noel.email, subject: 'Lunch?', text: 'At noon.' },
      { user: mia.email, pass: await appPassword(atrium, mia, 'Laptop') },
    );
    await atrium.mail!.drainQueue();
    await expect
      .poll(async () => {
        const row = await atrium.db
          .selectFrom('mailbox_usage')
          .select('messages')
          .where('user_id', '=', noel.id)
          .executeTakeFirst();
        return Number(row?.messages ?? 0);
      })
      .toBe(1);
    await page.reload();
    await expect(flowing).toContainText('Mail is flowing (not done yet)');
    await expect(checklist.getByText('Every setup step is done.')).toHaveCount(0);
    await expect(flowing).toContainText('No message has arrived yet.');
    await shot('colleague-message', checklist);

    // The first message from another server arrives on port 25.
    await sendMail(mail, { from: 'grace@partner.example', to: noel.email, subject: 'Hello', text: 'Hi!' });
    await atrium.mail!.drainQueue();

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
