import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Mailbox } from '../support/mailbox.ts';

let visitors = 0;
const nextAddress = () => {
  visitors += 1;
  return `10.${(visitors >> 16) & 255}.${(visitors >> 8) & 255}.${visitors & 255}`;
};

/**
 * One browser going through sign-up: it keeps the HttpOnly sign-up cookie the server sets,
 * the way a browser would, and sends it back on the next request.
 */
export class SignupVisitor {
  cookie: string | undefined;
  private readonly app: FastifyInstance;
  /** Each visitor comes from its own address, so per-address rate limits apply per visitor. */
  readonly address: string;

  constructor(app: FastifyInstance, address = nextAddress()) {
    this.app = app;
    this.address = address;
  }

  /** Another tab of the same browser: the same cookie. */
  tab(): SignupVisitor {
    const other = new SignupVisitor(this.app, this.address);
    other.cookie = this.cookie;
    return other;
  }

  async send(method: 'GET' | 'POST', url: string, body?: unknown): Promise<LightMyRequestResponse> {
    const response = await this.app.inject({
      method,
      url,
      remoteAddress: this.address,
      ...(body !== undefined && { payload: body as object }),
      headers: this.cookie ? { cookie: `atrium_signup=${this.cookie}` } : {},
    });
    const set = response.cookies.find((c) => c.name === 'atrium_signup');
    if (set) this.cookie = set.value === '' ? undefined : set.value;
    return response;
  }

  state() {
    return this.send('GET', '/api/signup');
  }

  site(organizationName: string, siteName: string) {
    return this.send('POST', '/api/signup/site', { organizationName, siteName });
  }

  email(email: string) {
    return this.send('POST', '/api/signup/email', { email });
  }

  verify(code: string) {
    return this.send('POST', '/api/signup/verify', { code });
  }

  account(body: { firstName?: string; lastName?: string; password: string; passwordConfirmation?: string }) {
    return this.send('POST', '/api/signup/account', {
      firstName: body.firstName ?? 'Grace',
      lastName: body.lastName ?? 'Hopper',
      password: body.password,
      passwordConfirmation: body.passwordConfirmation ?? body.password,
    });
  }

  /** Site, e-mail and the code from the mailbox: ready for the account stage. */
  async reachAccount(mailbox: Mailbox, siteName: string, email: string): Promise<void> {
    const after = mailbox.count;
    expectOk(await this.site(`Org ${siteName}`, siteName));
    expectOk(await this.email(email));
    const code = await mailbox.waitForCode(email, { after });
    expectOk(await this.verify(code));
  }
}

export function expectOk(response: LightMyRequestResponse): void {
  if (response.statusCode !== 200) {
    throw new Error(`Expected 200, got ${response.statusCode}: ${response.body}`);
  }
}

/** The field messages of an error response. */
export const fieldsOf = (response: LightMyRequestResponse): Record<string, string> =>
  (response.json() as { error: { fields?: Record<string, string> } }).error.fields ?? {};
