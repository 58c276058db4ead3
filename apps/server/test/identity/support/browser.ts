/**
 * A tiny browser for tests: real HTTP with a cookie jar and redirects followed one by one,
 * so tests can see every hop of a sign-in (authorize → interaction → /login → callback).
 */
export interface Hop {
  status: number;
  url: string;
  location: string | undefined;
  setCookies: string[];
  body: string;
  headers: Headers;
}

export class TestBrowser {
  readonly origin: string;
  /** name → value; path and domain are ignored (one origin under test). */
  readonly cookies = new Map<string, string>();
  /** Raw Set-Cookie headers seen, newest last, for attribute checks. */
  readonly setCookieLog: string[] = [];
  private readonly backends: string[];
  private readonly headers: Record<string, string>;
  private turn = 0;

  /**
   * `origin` is the public origin (PUBLIC_URL). `backends`, when given, are the real servers
   * behind it, taken in turn for each request (a round-robin load balancer); `headers` go with
   * every request (e.g. x-forwarded-proto from a TLS-terminating proxy).
   */
  constructor(origin: string, options: { backends?: string[]; headers?: Record<string, string> } = {}) {
    this.origin = new URL(origin).origin;
    this.backends = options.backends ?? [this.origin];
    this.headers = options.headers ?? {};
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(
    url: string,
    options: {
      method?: string;
      json?: unknown;
      form?: Record<string, string>;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Hop> {
    const target = new URL(url, this.origin);
    const headers: Record<string, string> = { ...this.headers, ...options.headers };
    if (target.origin === this.origin && this.cookies.size) headers.cookie = this.cookieHeader();
    const backend = this.backends[this.turn++ % this.backends.length]!;
    const sent = target.origin === this.origin ? new URL(target.pathname + target.search, backend) : target;
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    const response = await fetch(sent, {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
    });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      this.setCookieLog.push(line);
      const [pair = ''] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      const expired = /max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = response.headers.get('location') ?? undefined;
    return {
      status: response.status,
      url: target.href,
      location: location ? new URL(location, target).href : undefined,
      setCookies,
      body: await response.text(),
      headers: response.headers,
    };
  }

  /** Follows redirects within our origin; stops at the first hop that leaves it or is not a redirect. */
  async follow(url: string, stopAt?: (url: URL) => boolean): Promise<Hop> {
    let hop = await this.request(url);
    for (let i = 0; i < 15 && hop.location; i++) {
      const next = new URL(hop.location);
      if (next.origin !== this.origin || stopAt?.(next)) return hop;
      hop = await this.request(hop.location);
    }
    return hop;
  }
}
