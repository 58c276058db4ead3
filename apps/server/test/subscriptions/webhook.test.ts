import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/modules/organizations/create-organization.ts';
import { SUBSCRIPTION_WEBHOOK_JOB } from '../../src/modules/subscriptions/subscription-webhook.ts';
import { signInAs, type TestSession } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from '../users/helpers.ts';
import { finishImport, startImport } from '../migration/helpers.ts';
import { person } from './helpers.ts';

// Issue 15: the billing system's webhook, received by a real HTTP server on loopback.
const SECRET = 'billing-webhook-secret-0123456789';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: {
    id: string;
    type: string;
    sequence: number;
    organization: { siteName: string };
    data: Record<string, unknown>;
  };
  answered: number;
}

/** A billing system's endpoint: records every POST, and answers 500 to the next `failNext` ones. */
class Receiver {
  readonly received: Received[] = [];
  private failures = 0;
  private waiters: Array<() => void> = [];
  private readonly server: Server;
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const answered = this.failures > 0 ? 500 : 204;
        if (this.failures > 0) this.failures -= 1;
        this.received.push({ headers: req.headers, body, json: JSON.parse(body), answered });
        res.statusCode = answered;
        res.end();
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/billing/atrium`;
  }

  failNext(count: number): void {
    this.failures = count;
  }

  /** The first request that matches, waiting for it to arrive. */
  async waitFor(match: (r: Received) => boolean): Promise<Received> {
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** What a billing system does with each delivery: recompute the HMAC of the raw body. */
function signatureIsValid(received: Received): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(received.body).digest('hex')}`);
  const sent = Buffer.from(String(received.headers['x-atrium-signature'] ?? ''));
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

let receiver: Receiver;
let t: TestApp;
let organizationId: string;
let admin: ReturnType<typeof as>;
let adminSession: TestSession;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  t = await createTestApp({
    env: { SUBSCRIPTION_WEBHOOK_URL: receiver.url, SUBSCRIPTION_WEBHOOK_SECRET: SECRET },
  });
  const created = await createOrganization(t.db, t.config, {
    name: 'Acme Ltd',
    siteName: 'acme',
    admin: { email: 'ada@acme.test', firstName: 'Ada', lastName: 'Lovelace', passwordHash: null },
  });
  organizationId = created.organizationId;
  adminSession = await signInAs(t.db, { id: created.adminUserId, email: 'ada@acme.test', organizationId });
  admin = as(t, adminSession);
  await addDomain(t.db, organizationId, 'acme.test', 'verified');
});

afterAll(async () => {
  await t.close();
  await receiver.close();
});

async function queuedRetry() {
  for (;;) {
    const job = await t.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', SUBSCRIPTION_WEBHOOK_JOB)
      .where('status', '=', 'queued')
      .where('attempts', '=', 1)
      .executeTakeFirst();
    if (job) return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the subscription webhook', () => {
  it('tells of a new organisation’s subscription, signed', async () => {
    t.app.jobs.wake();
    const created = await receiver.waitFor((r) => r.json.type === 'subscription.created');
    expect(signatureIsValid(created)).toBe(true);
    expect(created.headers['content-type']).toBe('application/json');
    expect(created.headers['x-atrium-event']).toBe('subscription.created');
    expect(created.headers['x-atrium-delivery']).toBe(created.json.id);
    expect(created.json.organization).toEqual({ id: organizationId, name: 'Acme Ltd', siteName: 'acme' });
    expect(created.json.data.subscription).toMatchObject({ plan: 'business', seats: 10, status: 'trial' });
  });

  it('retries a change the receiver first answers with 500, and logs the delivery', async () => {
    receiver.failNext(1);
    expect((await admin.put('/api/subscription', { planKey: 'business', seats: 2 })).status).toBe(200);
    const first = await receiver.waitFor((r) => r.json.type === 'subscription.changed');
    expect(first.answered).toBe(500);

    // The queue waits for its backoff; make the retry due now rather than wait for it.
    const job = await queuedRetry();
    expect(job.last_error).toBe('The receiver answered 500');
    await t.db.updateTable('jobs').set({ run_at: new Date() }).where('id', '=', job.id).execute();
    t.app.jobs.wake();
    const second = await receiver.waitFor(
      (r) => r.json.type === 'subscription.changed' && r.answered === 204,
    );

    // The same event, byte for byte, with a valid signature each time.
    expect(second.body).toBe(first.body);
    expect(signatureIsValid(second)).toBe(true);
    expect(second.json.data).toMatchObject({
      previous: { plan: 'business', seats: 10, status: 'trial' },
      subscription: { plan: 'business', seats: 2, status: 'trial' },
      changedBy: 'console',
    });
    await t.app.jobs.drain();
    const log = await t.db
      .selectFrom('subscription_webhook_deliveries')
      .selectAll()
      .where('id', '=', second.json.id)
      .executeTakeFirstOrThrow();
    expect(log).toMatchObject({
      event: 'subscription.changed',
      status: 'delivered',
      attempts: 2,
      last_status_code: 204,
      last_error: null,
    });
  });

  it('tells when the last seat is taken', async () => {
    // Two seats, one user: the next user takes the last seat.
    expect((await admin.post('/api/users', person('grace', 'acme.test'))).status).toBe(201);
    const exhausted = await receiver.waitFor((r) => r.json.type === 'subscription.seats_exhausted');
    expect(signatureIsValid(exhausted)).toBe(true);
    expect(exhausted.json.data).toEqual({ plan: 'business', seats: 2, seatsUsed: 2 });
  });

  it('delivers an organisation’s events in the order they happened, numbered, while one is retried', async () => {
    await t.app.jobs.drain();
    const before = receiver.received.length;
    receiver.failNext(1);
    // A billing system applying these one after the other must end on 34 seats.
    for (const seats of [30, 31, 32, 33, 34]) {
      expect((await admin.put('/api/subscription', { planKey: 'business', seats })).status).toBe(200);
    }
    const isNew = (r: Received) => receiver.received.indexOf(r) >= before;
    const firstTry = await receiver.waitFor((r) => isNew(r) && r.answered === 500);
    expect(firstTry.json.data).toMatchObject({ subscription: { seats: 30 } });

    // Later events wait for the one being retried; make its retry due now.
    const job = await queuedRetry();
    await t.db.updateTable('jobs').set({ run_at: new Date() }).where('id', '=', job.id).execute();
    t.app.jobs.wake();
    await receiver.waitFor(
      (r) =>
        r.json.type === 'subscription.changed' &&
        r.json.data.subscription !== undefined &&
        (r.json.data.subscription as { seats: number }).seats === 34,
    );

    const arrived = receiver.received.slice(before).map((r) => ({
      seats: (r.json.data.subscription as { seats: number }).seats,
      sequence: r.json.sequence,
      answered: r.answered,
      header: r.headers['x-atrium-sequence'],
    }));
    expect(arrived.map((a) => [a.seats, a.answered])).toEqual([
      [30, 500],
      [30, 204],
      [31, 204],
      [32, 204],
      [33, 204],
      [34, 204],
    ]);
    // Numbered 1, 2, 3… per organisation, one more each event, in the body and a header.
    const sequences = arrived.slice(1).map((a) => a.sequence);
    expect(sequences).toEqual([0, 1, 2, 3, 4].map((n) => sequences[0]! + n));
    expect(arrived.every((a) => a.header === String(a.sequence))).toBe(true);
  });

  it('tells when an import takes the last seat, as adding a user does', async () => {
    await t.app.jobs.drain();
    expect((await admin.put('/api/subscription', { planKey: 'business', seats: 4 })).status).toBe(200);
    const used = 2; // Ada and Grace
    const file = [
      'First name,Last name,E-mail',
      'Alan,Turing,alan@acme.test',
      'Barbara,Liskov,barbara@acme.test',
    ];
    const started = await startImport(t, adminSession, file.join('\n'));
    expect(started.status).toBe(202);
    await finishImport(t, started.body.id);
    t.app.jobs.wake();
    const exhausted = await receiver.waitFor(
      (r) => r.json.type === 'subscription.seats_exhausted' && r.json.data.seats === 4,
    );
    expect(signatureIsValid(exhausted)).toBe(true);
    expect(exhausted.json.data).toEqual({ plan: 'business', seats: 4, seatsUsed: used + 2 });
  });
});
