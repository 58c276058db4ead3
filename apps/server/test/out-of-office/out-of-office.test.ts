import { describe, expect, it } from 'vitest';
import { outOfOfficeDict } from '../../src/modules/out-of-office/out-of-office.service.ts';
import { useOrganizationWorld } from '../support/admin-world.ts';
import { createOrganizationWithAdmin, createUser, signInAs } from '../support/fixtures.ts';

// The API behind /profile's Out of office card, and what Atrium's dict answers Dovecot for it
// (without the mail servers: test/mail/sieve.test.ts delivers through them).

describe('/api/profile/out-of-office', () => {
  const server = useOrganizationWorld();
  const body = {
    enabled: true,
    firstDay: '2026-12-01',
    lastDay: '2026-12-10',
    subject: 'Away',
    message: 'Back on the 11th.',
  };

  it('is off until saved, saves the signed-in person’s own, and answers Dovecot’s dict with the script', async () => {
    const user = await createUser(server.db, server.org.id);
    const session = await signInAs(server.db, user);
    const first = await server.app.inject({ url: '/api/profile/out-of-office', headers: session.headers });
    expect(first.json().outOfOffice).toMatchObject({ enabled: false, updatedAt: null });

    const dict = outOfOfficeDict(server.db);
    const name = 'priv/sieve/name/out-of-office';
    expect(await dict(name, user.email)).toBeNull();

    const saved = await server.app.inject({
      method: 'PUT',
      url: '/api/profile/out-of-office',
      headers: session.headers,
      payload: body,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().outOfOffice).toMatchObject({ ...body });
    expect(await dict(name, user.email.toUpperCase())).toBe('v1');
    const script = await dict('priv/sieve/data/v1', user.email);
    expect(script).toContain('vacation :days 4 :subject "Away" "Back on the 11th."');
    expect(script).toContain('currentdate :value "le" "date" "2026-12-10"');
    // The userdb's keys are not the out-of-office's to answer.
    expect(await dict('shared/userdb/lmtp/x@example.com', undefined)).toBeUndefined();

    // Every save gives a new id, so Dovecot compiles the new text; switched off, no script at all.
    await server.app.inject({
      method: 'PUT',
      url: '/api/profile/out-of-office',
      headers: session.headers,
      payload: { ...body, enabled: false },
    });
    expect(await dict(name, user.email)).toBeNull();
    await server.app.inject({
      method: 'PUT',
      url: '/api/profile/out-of-office',
      headers: session.headers,
      payload: { ...body, subject: 'Still away' },
    });
    expect(await dict(name, user.email)).toBe('v3');

    // Nobody else's: a colleague and another organisation's person see their own (none).
    const colleague = await signInAs(server.db, await createUser(server.db, server.org.id));
    const theirs = await server.app.inject({ url: '/api/profile/out-of-office', headers: colleague.headers });
    expect(theirs.json().outOfOffice.updatedAt).toBeNull();
    const other = await createOrganizationWithAdmin(server.db);
    const outsider = await signInAs(server.db, other.admin);
    const outside = await server.app.inject({ url: '/api/profile/out-of-office', headers: outsider.headers });
    expect(outside.json().outOfOffice.updatedAt).toBeNull();
  });

  it('refuses days in the wrong order, a subject on two lines, no words when on, and anyone signed out', async () => {
    const session = await signInAs(server.db, await createUser(server.db, server.org.id));
    const put = (payload: object) =>
      server.app.inject({
        method: 'PUT',
        url: '/api/profile/out-of-office',
        headers: session.headers,
        payload,
      });
    const order = await put({ ...body, firstDay: '2026-12-11' });
    expect(order.statusCode).toBe(400);
    expect(order.json().error.fields).toMatchObject({ lastDay: 'The last day is before the first day' });
    expect((await put({ ...body, subject: 'Away\nBcc: x@example.com' })).statusCode).toBe(400);
    const empty = await put({ ...body, message: '  ' });
    expect(empty.json().error.fields).toMatchObject({ message: 'Write the message people get' });
    // Off, a draft without words is kept.
    expect((await put({ ...body, enabled: false, subject: '', message: '' })).statusCode).toBe(200);
    const signedOut = await server.app.inject({
      method: 'PUT',
      url: '/api/profile/out-of-office',
      payload: body,
    });
    expect(signedOut.statusCode).toBe(401);
  });
});
