import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDefaultCollections, type RadicaleAddress } from '../../src/modules/dav/radicale-client.ts';
import { DIRECTORY_WRITER } from '../../src/operator/install/dav-files.ts';
import { TestDavHost } from '../support/dav-host.ts';
import { createOrganizationWithAdmin, createUser, signInAs } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from '../users/helpers.ts';
import { downloadAndExtract, finishTakeout } from './helpers.ts';

// The takeout of users with events and contacts in Radicale (Debian's, as user radicale): one
// .ics per calendar and one .vcf per address book, which Python's icalendar and vobject (Debian's
// python3-icalendar, python3-vobject) read back; the organisation's directory copy is left out,
// and a user of another organisation is not in it.

let dav: TestDavHost;
let t: TestApp;
let radicale: RadicaleAddress;

const EVENT = (uid: string, summary: string) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Atrium test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20261201T090000Z',
    'DTSTART:20261215T100000Z',
    'DTEND:20261215T110000Z',
    `SUMMARY:${summary}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
const CARD = (uid: string, name: string) =>
  [
    'BEGIN:VCARD',
    'VERSION:3.0',
    `UID:${uid}`,
    `FN:${name}`,
    `N:${name.split(' ').reverse().join(';')};;;`,
    'END:VCARD',
    '',
  ].join('\r\n');

/** A PUT as the user, as Caddy passes a signed-in client's request on to Radicale. */
async function put(user: string, href: string, body: string, type: string): Promise<void> {
  const response = await fetch(`http://${radicale.host}:${radicale.port}${href}`, {
    method: 'PUT',
    headers: { 'x-remote-user': user, 'content-type': `${type}; charset=utf-8` },
    body,
  });
  expect(response.status, `${href}: ${await response.text()}`).toBe(201);
}

beforeAll(async () => {
  dav = await TestDavHost.prepare();
  t = await createTestApp({ listen: true, env: { DAV_RADICALE_ADDRESS: dav.radicaleAddress } });
  await dav.start({ mailHost: 'localhost', atriumPort: Number(t.config.port) });
  radicale = t.config.davRadicale!;
}, 60_000);

afterAll(async () => {
  await dav?.close();
  await t?.close();
});

/** Python's own reading of the files: each calendar's events and each address book's names. */
function readWithPython(files: Record<string, string>): { events: string[]; contacts: string[] } {
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-takeout-dav-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    const script = `
import glob, json, os, sys, icalendar, vobject
events, contacts = [], []
for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.ics'))):
    cal = icalendar.Calendar.from_ical(open(f, 'rb').read())
    events += [str(e.get('summary')) for e in cal.walk('VEVENT')]
for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.vcf'))):
    contacts += [c.fn.value for c in vobject.readComponents(open(f).read())]
print(json.dumps({'events': sorted(events), 'contacts': sorted(contacts)}))
`;
    const run = spawnSync('/usr/bin/python3', ['-c', script, dir], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`/usr/bin/python3: ${run.stderr}`);
    return JSON.parse(run.stdout) as { events: string[]; contacts: string[] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('takeout of calendars and contacts', () => {
  it('holds each calendar as .ics and each address book as .vcf, which icalendar and vobject read', async () => {
    const org = await createOrganizationWithAdmin(t.db);
    const domain = `cal-${org.siteName}.example.com`;
    await addDomain(t.db, org.id, domain);
    const ann = await createUser(t.db, org.id, { email: `ann@${domain}` });
    const bob = await createUser(t.db, org.id, { email: `bob@${domain}` });
    const other = await createOrganizationWithAdmin(t.db);
    const zed = await createUser(t.db, other.id, { email: `zed@z-${other.siteName}.example.com` });

    for (const user of [ann, bob, zed]) await ensureDefaultCollections(radicale, user.id);
    await put(ann.id, `/${ann.id}/calendar/review.ics`, EVENT('review', 'Quarterly review'), 'text/calendar');
    await put(ann.id, `/${ann.id}/calendar/lunch.ics`, EVENT('lunch', 'Team lunch'), 'text/calendar');
    await put(ann.id, `/${ann.id}/contacts/grace.vcf`, CARD('grace', 'Grace Hopper'), 'text/vcard');
    await put(ann.id, `/${ann.id}/contacts/alan.vcf`, CARD('alan', 'Alan Turing'), 'text/vcard');
    await put(zed.id, `/${zed.id}/calendar/secret.ics`, EVENT('secret', 'Zed secret'), 'text/calendar');
    // An old copy of the organisation's directory in Ann's account (Atrium's writer made those).
    const directory = await fetch(`http://${radicale.host}:${radicale.port}/${ann.id}/directory/`, {
      method: 'PUT',
      headers: { 'x-remote-user': DIRECTORY_WRITER, 'content-type': 'text/vcard; charset=utf-8' },
      body: CARD('bob-card', 'Bob Directory'),
    });
    expect(directory.status).toBe(201);

    const admin = await signInAs(t.db, org.admin);
    const started = await as(t, admin).post('/api/takeout');
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const row = await finishTakeout(t, started.body.id);
    expect(row.status, row.error ?? '').toBe('done');
    const archive = await downloadAndExtract(t, admin, started.body.id);

    const davFiles = [...archive.files.keys()].filter((n) => /^(calendars|contacts)\//.test(n)).sort();
    expect(davFiles).toEqual(
      [
        `calendars/${ann.email}/calendar.ics`,
        `calendars/${bob.email}/calendar.ics`,
        `contacts/${ann.email}/contacts.vcf`,
        `contacts/${bob.email}/contacts.vcf`,
      ].sort(),
    );
    expect(
      readWithPython({
        'calendar.ics': archive.text(`calendars/${ann.email}/calendar.ics`),
        'contacts.vcf': archive.text(`contacts/${ann.email}/contacts.vcf`),
      }),
    ).toEqual({ events: ['Quarterly review', 'Team lunch'], contacts: ['Alan Turing', 'Grace Hopper'] });
    // Bob's are there and empty; the admin, who never used calendars, has none; nothing of the other organisation's.
    expect(readWithPython({ 'bob.ics': archive.text(`calendars/${bob.email}/calendar.ics`) })).toEqual({
      events: [],
      contacts: [],
    });
    expect([...archive.files.values()].some((f) => f.toString('utf8').includes('Zed secret'))).toBe(false);
    expect(archive.text('README.txt')).toContain('calendars/<address>/<name>.ics');
  }, 120_000);
});
