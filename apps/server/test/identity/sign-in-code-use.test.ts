import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createMailer } from '../../src/lib/mail.ts';
import { checkSignInCode } from '../../src/modules/auth/sign-in/sign-in.service.ts';
import { findCodeStep } from '../../src/modules/auth/sign-in/sign-in.repository.ts';
import { JobWorker } from '../../src/modules/jobs/job-worker.ts';
import { createUser } from '../support/fixtures.ts';
import { openSignIn } from './support/sign-in.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

// The code step uses the code up with the sign-in's other writes, in one statement (issue 18):
// a code still signs in once only, and a code used up signs nobody in.

const PASSWORD = WORLD_PASSWORD;

describe('using up the e-mailed code', () => {
  const world = useSignInWorld();

  /** A new user at the code step of a sign-in: its `post` and the code it was e-mailed. */
  async function atCodeStep() {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const { post, uid } = await openSignIn(world.server.config.publicUrl.origin);
    const after = world.mailbox.count;
    expect((await post('password', { email: user.email, password: PASSWORD })).status).toBe(200);
    return { user, post, uid, code: await world.mailbox.waitForCode(user.email, { after }) };
  }

  it('signs nobody in with a code another request used after this one read it', async () => {
    const { user, post, uid, code } = await atCodeStep();
    // This request reads the code step; another one uses the code first.
    const step = await findCodeStep(world.server.db, { context: uid, ip: '127.0.0.1' });
    expect(step.open).toBeDefined();
    expect((await post('code', { code })).status).toBe(200);

    const log = Fastify({ logger: { level: 'silent' } }).log;
    const mailer = createMailer(
      world.server.config,
      world.server.db,
      log,
      new JobWorker(world.server.db, log),
      async () => {},
    );
    const late = checkSignInCode(
      { db: world.server.db, config: world.server.config, mailer },
      { step, context: uid, code, ip: '127.0.0.1', device: { token: 'a-browser-of-its-own' } },
    );
    await expect(late).rejects.toMatchObject({
      code: 'code_invalid',
      fields: { code: 'This code is no longer valid. Send a new code.' },
    });
    const devices = await world.server.db
      .selectFrom('known_devices')
      .select('device_hash')
      .where('user_id', '=', user.id)
      .execute();
    expect(devices).toHaveLength(1);
  });

  it('signs in once with a right code sent twice at once; the other is told it is no longer valid', async () => {
    const { post, code } = await atCodeStep();
    const answers = await Promise.all([post('code', { code }), post('code', { code })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const refused = answers.find((a) => a.status === 400)!;
    expect(JSON.parse(refused.body).error).toMatchObject({
      code: 'code_invalid',
      fields: { code: 'This code is no longer valid. Send a new code.' },
    });
  });

  it('uses up the code of an account suspended after its password, and signs it in nowhere', async () => {
    const { user, post, code } = await atCodeStep();
    await world.server.db
      .updateTable('users')
      .set({ status: 'suspended' })
      .where('id', '=', user.id)
      .execute();
    const suspended = await post('code', { code });
    expect(suspended.status).toBe(403);
    expect(JSON.parse(suspended.body).error.message).toBe(
      'This account cannot sign in. Ask your administrator.',
    );

    await world.server.db.updateTable('users').set({ status: 'active' }).where('id', '=', user.id).execute();
    expect(JSON.parse((await post('code', { code })).body).error.code).toBe('code_invalid');
    const row = await world.server.db
      .selectFrom('users')
      .select('last_sign_in_at')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.last_sign_in_at).toBeNull();
  });
});
