import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/modules/organizations/create-organization.ts';
import { SUBSCRIPTION_WEBHOOK_JOB } from '../../src/modules/subscriptions/subscription-webhook.ts';
import { signInAs } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from '../users/helpers.ts';
import { person } from './helpers.ts';

// Issue 15: the billing system's webhook, received by a real HTTP server on loopback.
const SECRET = 'billing-webhook-secret-0123456789';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: { id: string; type: string; organization: { siteName: string }; data: Record<string, unknown> };
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
  admin = as(t, await signInAs(t.db, { id: created.adminUserId, email: 'ada@acme.test', organizationId }));
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
});
