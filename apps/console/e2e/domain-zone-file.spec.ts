import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { generateDkimKey } from '../../server/src/modules/domains/dkim.ts';
import { screenshotAndAxe } from './support/accessibility.ts';
import { SCREENSHOTS } from './support/screenshots.ts';
import { createOrganizationWithAdmin, expect, test, type Atrium } from './support/fixtures.ts';

// Issue 42, item 4: the domain page's records as a zone file to download and a block to copy, the
// DKIM key as one string with what to do when a DNS host limits text values to 255 characters,
// and "Check all records now". (That BIND loads the zone file: test/domains/zone-file.test.ts.)

const shots = path.join(SCREENSHOTS, 'domain-zone-file');
const LONG_NOTE =
  'Some DNS hosts limit a text value to 255 characters: paste it whole; if yours refuses, split it into quoted strings of 255 characters at most (the zone file does this for you).';

/** A verified primary domain with a real RSA-2048 DKIM key, as verifying one leaves it. */
async function insertVerifiedDomainWithKey(atrium: Atrium, organizationId: string, name: string) {
  const key = await generateDkimKey(atrium.config.secret);
  const row = await atrium.db
    .insertInto('domains')
    .values({
      organization_id: organizationId,
      name,
      state: 'verified',
      is_primary: true,
      verified_at: new Date(),
      verification_token: 'zonefile'.padEnd(32, 'x'),
      dkim_private_key_enc: key.privateKeyEnc,
      dkim_public_key: key.publicKey,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, dkimValue: `v=DKIM1; k=rsa; p=${key.publicKey}` };
}

for (const width of [375, 1280] as const) {
  test(`at ${width} px an admin downloads the zone file, copies all records and checks them all again`, async ({
    page,
    context,
    atrium,
    signInAs,
  }) => {
    const shot = await screenshotAndAxe(page, shots, width);
    const org = await createOrganizationWithAdmin(atrium.db);
    const name = `zone-${width}-${Date.now().toString(36)}.example`;
    const { id, dkimValue } = await insertVerifiedDomainWithKey(atrium, org.id, name);
    expect(dkimValue.length).toBeGreaterThan(255);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: atrium.url });
    await signInAs(org.admin);

    await page.goto(`/d-verify?id=${id}`);
    const section = page.getByRole('region', { name: 'DNS mapping' });
    await expect(section.getByText('0 of 14 records in place')).toBeVisible();

    // The DKIM key as one string, with the note about DNS hosts' 255-character limit.
    const mapping = page.getByRole('list', { name: 'DNS records' });
    const dkim = mapping
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'DKIM key' }) });
    await expect(dkim.getByText(dkimValue, { exact: true })).toBeVisible();
    await expect(dkim.getByText(LONG_NOTE)).toBeVisible();
    await expect(dkim.getByText(/^"v=DKIM1/)).toHaveCount(0);
    await dkim.scrollIntoViewIfNeeded();
    await shot('dkim-one-string', dkim);

    // The zone file downloads as <domain>.zone and holds the DKIM key as 255-byte quoted strings.
    const downloading = page.waitForEvent('download');
    await section.getByRole('link', { name: 'Download zone file' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`${name}.zone`);
    expect(await download.failure()).toBeNull();
    const zone = await readFile((await download.path())!, 'utf8');
    expect(zone).toContain(`$ORIGIN ${name}.\n$TTL 3600\n`);
    const dkimLine = zone.split('\n').find((line) => line.startsWith('atrium._domainkey\t'))!;
    expect(dkimLine).toMatch(/^atrium\._domainkey\t3600\tIN\tTXT\t"v=DKIM1; k=rsa; p=[^"]+" "[^"]+"$/);
    const strings = [...dkimLine.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
    expect(strings.map((s) => s.length)).toEqual([255, dkimValue.length - 255]);
    expect(strings.join('')).toBe(dkimValue);
    expect(zone).toContain(`@\t3600\tIN\tMX\t10 ${atrium.config.mailHost}.\n`);
    // Still on the domain page.
    await expect(page).toHaveURL(new RegExp(`/d-verify\\?id=${id}$`));

    // Copy all: the same zone-file block on the clipboard.
    const copyAll = section.getByRole('button', { name: 'Copy all records as a zone file' });
    await expect(copyAll).toBeEnabled();
    await copyAll.click();
    await expect(copyAll).toHaveText('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(zone);
    await section.getByText('Show the records as a zone file').click();
    await expect(section.getByLabel('Zone file', { exact: true })).toContainText(dkimLine.split('\t')[0]!);
    await section.scrollIntoViewIfNeeded();
    await shot('zone-file-actions', section.getByRole('group', { name: 'All records at once' }));

    // The admin publishes the MX record and checks every record again.
    atrium.dns.set(name, { MX: [{ exchange: atrium.config.mailHost, priority: 10 }] });
    await section.getByRole('button', { name: 'Check all records now' }).click();
    await expect(section.getByText('1 of 14 records in place')).toBeVisible();
    const mx = mapping
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Mail exchanger (MX)' }) });
    await expect(mx.getByText('OK', { exact: true })).toBeVisible();
    await expect(section.getByRole('button', { name: 'Check all records now' })).toBeEnabled();
    await shot('checked-again');
  });
}
