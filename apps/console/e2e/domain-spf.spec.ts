import path from 'node:path';
import { insertVerifiedDomain } from './support/domains.ts';
import { SCREENSHOTS } from './support/screenshots.ts';
import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';

// Issue 40, item 4: a domain's `include:<MAIL_HOST>` passes a receiver's SPF check only once the
// mail host publishes its own SPF record; the domain page evaluates it as a receiver does and names
// the record that is missing. (That it passes once the record is published: test/domains/spf-check.test.ts,
// where MAIL_HOST is a name; here it is mail.127.0.0.1, which no SPF evaluator takes for a domain.)

for (const width of [375, 1280] as const) {
  test(`at ${width} px the domain page says SPF does not pass while MAIL_HOST publishes no record of its own, and names it`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    await page.setViewportSize({ width, height: 900 });
    const org = await createOrganizationWithAdmin(atrium.db);
    const name = `spf-${width}-${Date.now().toString(36)}.example`;
    const { id } = await insertVerifiedDomain(atrium, org.id, name, { token: `spf${width}`, primary: true });
    const mailHost = atrium.config.mailHost;
    atrium.dns.set(name, { TXT: [`v=spf1 include:${mailHost} ~all`] });
    atrium.dns.set(mailHost, { A: ['127.0.0.1'] });
    await signInAs(org.admin);

    await page.goto(`/d-verify?id=${id}`);
    const spf = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /^SPF/ }) });
    await expect(spf.getByText('Does not pass')).toBeVisible();
    await expect(spf.getByText(/gives permerror .* publishes no SPF record/)).toBeVisible();
    await expect(spf.getByText(`${mailHost} TXT "v=spf1 a -all"`, { exact: true })).toBeVisible();
    await spf.scrollIntoViewIfNeeded();
    await spf.screenshot({ path: path.join(SCREENSHOTS, `${width}-domain-spf-does-not-pass.png`) });
  });
}
