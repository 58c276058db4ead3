import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, signInAs, type TestOrganization } from '../support/fixtures.ts';
import { registeredRoutes, type RegisteredRoute } from '../support/registered-routes.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Hostile input to every route the server registers, and to the identity provider's endpoints:
 * nothing may answer 5xx. An operation published in /api/openapi.json gets values for what it
 * declares; a route the document leaves out (named below, with the reason) gets hostile paths,
 * queries and bodies all the same. Every value goes alone into one place (a path parameter, a
 * query parameter, a body field, the whole body) of an otherwise plausible request, signed in as
 * an admin with the CSRF token and anonymously.
 */

const MB = 1024 * 1024;

/** Hostile strings; each reaches the server intact (JSON bodies carry lone surrogates as \ud800). */
const BAD_STRINGS = [
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\u0001\u0008\r\n\u001b\u007f',
  'a\u200b\u202e\u2066\u3000b',
  'a'.repeat(MB),
];
/** Values of the wrong type for any field. */
const WRONG_TYPES: unknown[] = [1e308, true, null, ['a\u0000b'], { 'k\u0000': 'v' }];
/** Query and path values, already percent-encoded (lone surrogates and bad UTF-8 as bytes). */
const BAD_ENCODED = [
  'a%00b',
  '%ED%A0%80',
  'x%ED%B0%80y',
  '%FF%FE%C0%AF',
  '%01%1B%0D%0A%7F',
  '%E2%80%AE%E2%80%8B%E3%80%80',
  '..%2F..%2F',
  '1e999',
];
const LONG_ENCODED = 'a'.repeat(MB);
const CSV_HEADER = 'First name,Last name,E-mail,Groups\n';
/** Whole bodies: malformed JSON, of the wrong shape, hostile to the parser; broken and hostile files. */
const BAD_BODIES: Array<[string, string | Buffer]> = [
  ['application/json', '{"a":'],
  ['application/json', ''],
  ['application/json', 'null'],
  ['application/json', '"text"'],
  ['application/json', '{"__proto__":{"polluted":true}}'],
  ['application/json', '{"constructor":{"prototype":{"polluted":true}}}'],
  ['application/json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
  ['application/json', JSON.stringify({ a: 'a'.repeat(2 * MB) })],
  ['application/json', '{"a":"\\ud800","b":"\\u0000"}'],
  ['text/plain', 'hello'],
  ['application/x-www-form-urlencoded', 'a=%00'],
  // Files (the CSV uploads take a raw text/csv body, which the OpenAPI document does not describe;
  // every other operation must refuse them with a 4xx just the same).
  ['text/csv', `${CSV_HEADER}Ann,O"Brien,ann@example.com\n`],
  ['text/csv', `${CSV_HEADER}"Ann,Smith,ann@example.com\n`],
  ['text/csv', `${CSV_HEADER}Ann,Ro\u0000ss,ann@example.com\nBo,Smith,b\u0000o@example.com,Team\u0000A\n`],
  [
    'text/csv',
    Buffer.concat([
      Buffer.from(`${CSV_HEADER}Ann,`),
      Buffer.from([0xed, 0xa0, 0x80, 0xff]),
      Buffer.from(',ann@example.com\n'),
    ]),
  ],
  ['text/csv', `${CSV_HEADER}Ann\r,Smi\nth,ann@example.com\r\n"multi\r\nline",x,\rb@example.com\r\r\n`],
  ['text/csv', `${CSV_HEADER}${'a'.repeat(MB)},x,y@example.com\n`],
  ['text/csv', `${'a'.repeat(MB)}\n`],
  ['text/csv', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256))],
  ['text/csv', Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(64, 0)])],
  ['text/csv', 'email,host,port,tls,login,password\nann@example.com,"imap.example.com,993,yes,ann,\u0000\n'],
  ['text/plain', '{"users":[{"email":"ann@example.com","firstName":"Ann"}]}'],
  ['application/octet-stream', `${CSV_HEADER}Ann,Smith,ann@example.com\n`],
  ['text/csv; charset=utf-16', `${CSV_HEADER}Ann,Smith,ann@example.com\n`],
];

/** Whole XML bodies, to the operations that take XML (Autodiscover) and the unpublished routes. */
const XML_BODIES: Array<[string, string]> = [
  [
    'text/xml',
    '<Autodiscover><Request><__proto__><polluted>yes</polluted></__proto__></Request></Autodiscover>',
  ],
  ['text/xml', '<Autodiscover><constructor><prototype>x</prototype></constructor></Autodiscover>'],
  ['text/xml', '<a:hasOwnProperty xmlns:a="urn:x"><toString/></a:hasOwnProperty>'],
  ['application/xml', `${'<a>'.repeat(2000)}${'</a>'.repeat(2000)}`],
  ['application/xml', `${'<a>'.repeat(5000)}`],
  ['text/xml', '<!DOCTYPE a [<!ENTITY b "c"><!ENTITY d "&b;&b;&b;">]><a>&d;</a>'],
  ['text/xml', '<Autodiscover><Request><EMailAddress>a\u0000@x</EMailAddress></Request>'],
  [
    'text/xml',
    `<Autodiscover><Request><EMailAddress>${'a'.repeat(MB)}</EMailAddress></Request></Autodiscover>`,
  ],
];

/**
 * Registered routes the OpenAPI document leaves out, and why. They get the generic requests
 * (hostile path, query and whole bodies); a new route that is neither published (an operationId)
 * nor named here fails "covers every route the server registers".
 */
const UNPUBLISHED: Array<{ method?: string; url: RegExp; why: string }> = [
  { url: /^\/api\/openapi\.json$/, why: 'the document itself' },
  { url: /^\/api\/docs(\/|$)/, why: 'Swagger UI: its page and files' },
  {
    url: /^\/oidc(\/|$)/,
    why: "the identity provider's protocol (also fuzzed with its own parameters below)",
  },
  { method: 'PROPFIND', url: /^\/\.well-known\/(caldav|carddav)$/, why: 'OpenAPI 3.1 has no PROPFIND' },
  {
    url: /^\/dav\//,
    why: "CardDAV (the organisation's address book and its principal, modules/dav): WebDAV's methods and XML",
  },
  {
    method: 'GET',
    url: /^\/api\/mail\/rspamd\//,
    why: "rspamd's maps (mail-protection): this host's rspamd only, a 404 to anyone else",
  },
];
/** A query parameter for routes whose parameters the document does not name. */
const GENERIC_QUERY = 'q';

interface Schema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  $ref?: string;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

interface Operation {
  method: string;
  /** With `{name}` parameters, as the document writes them. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  body?: { properties: Record<string, Schema> };
  /** Takes XML (Autodiscover), or is an unpublished route: gets XML_BODIES too. */
  xmlBodies: boolean;
  /** A file of the built console (hundreds, one handler): one hostile request, not every value. */
  file?: boolean;
}

let server: TestApp;
let org: TestOrganization;
let routes: RegisteredRoute[];
let operations: Operation[];
let components: Record<string, Schema>;
let addressCount = 0;

/** A new source address per request, so per-address limits never answer in place of the route. */
function nextAddress(): string {
  addressCount++;
  return `10.${(addressCount >> 16) & 255}.${(addressCount >> 8) & 255}.${addressCount & 255}`;
}

function resolve(schema: Schema): Schema {
  if (schema.$ref) return resolve(components[schema.$ref.split('/').pop()!] ?? {});
  if (schema.allOf?.[0]) return resolve(schema.allOf[0]);
  return schema;
}

/** A plausible value for a schema, so that the other fields of a request pass validation. */
function sample(raw: Schema): unknown {
  const schema = resolve(raw);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const alternative = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (alternative) return sample(alternative);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'email') return 'fuzz@example.com';
      if (schema.format === 'uuid') return randomUUID();
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'uri') return 'https://app.example.com/callback';
      return 'fuzz-value';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v)]));
    default:
      return 'fuzz-value';
  }
}

function queryString(params: Record<string, string>): string {
  const pairs = Object.entries(params).map(([k, v]) => `${encodeURIComponent(k)}=${v}`);
  return pairs.length ? `?${pairs.join('&')}` : '';
}

/** A route's pattern as the document writes paths: `/users/:id` → `/users/{id}`, `*` → `{*}`. */
const documentPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}');

/** A path with every parameter filled in: a plausible value, or the given one. */
const fillPath = (pattern: string, override: Record<string, string> = {}) =>
  pattern.replace(/\{([\w*]+)\}/g, (_m, name: string) => override[name] ?? randomUUID());

/** The routes of the built console (when built): files served as they are. */
function isConsoleFile(url: string): boolean {
  const file = path.join(server.config.consoleDir, url);
  return file.startsWith(server.config.consoleDir) && existsSync(file) && statSync(file).isFile();
}

const unpublishedReason = (route: RegisteredRoute): string | undefined =>
  UNPUBLISHED.find((u) => u.url.test(route.url) && (u.method ?? route.method) === route.method)?.why;

/** Every request one operation gets: [label, inject options without identity]. */
function requestsFor(op: Operation): Array<InjectOptions & { url: string }> {
  const plausiblePath = (override: Record<string, string> = {}) => fillPath(op.path, override);
  const baseBody = op.body
    ? Object.fromEntries(Object.entries(op.body.properties).map(([k, v]) => [k, sample(v)]))
    : undefined;
  const withBody = (body: unknown) =>
    body === undefined
      ? {}
      : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
  const out: Array<InjectOptions & { url: string }> = [];
  const method = op.method as InjectOptions['method'];
  if (op.file) {
    // A range no file has keeps the answer small (a bundle is hundreds of kilobytes).
    const query = 'q=a%00b&q=%ED%A0%80&r=%FF%FE%C0%AF&s=..%2F..%2F';
    return [{ method, url: `${op.path}?${query}`, headers: { range: 'bytes=-0,99999999999999999999-' } }];
  }

  for (const name of op.pathParams) {
    for (const value of [...BAD_ENCODED, LONG_ENCODED.slice(0, 10_000)]) {
      out.push({ method, url: plausiblePath({ [name]: value }), ...withBody(baseBody) });
    }
  }
  for (const name of op.queryParams) {
    // Repeated, the parameter is an array.
    const values = [...BAD_ENCODED, LONG_ENCODED, `a%00&${encodeURIComponent(name)}=b`];
    for (const value of values) {
      out.push({ method, url: plausiblePath() + queryString({ [name]: value }), ...withBody(baseBody) });
    }
  }
  if (op.body) {
    for (const name of Object.keys(op.body.properties)) {
      for (const value of [...BAD_STRINGS, ...WRONG_TYPES]) {
        out.push({ method, url: plausiblePath(), ...withBody({ ...baseBody, [name]: value }) });
      }
    }
  }
  if (op.method !== 'GET' && op.method !== 'HEAD') {
    for (const [type, payload] of [...BAD_BODIES, ...(op.xmlBodies ? XML_BODIES : [])]) {
      out.push({ method, url: plausiblePath(), payload, headers: { 'content-type': type } });
    }
  }
  return out;
}

async function send(request: InjectOptions & { url: string }, identity: Record<string, string>) {
  const res = await server.app.inject({
    ...request,
    headers: { ...identity, ...(request.headers as Record<string, string> | undefined) },
    remoteAddress: nextAddress(),
  });
  return res.statusCode;
}

function describeRequest(request: InjectOptions & { url: string }): string {
  const type = (request.headers as Record<string, string> | undefined)?.['content-type'] ?? '';
  const body =
    typeof request.payload === 'string'
      ? request.payload
      : Buffer.isBuffer(request.payload)
        ? request.payload.toString('latin1')
        : '';
  return `${request.method} ${request.url.slice(0, 120)} ${type} ${JSON.stringify(body.slice(0, 120))}`;
}

beforeAll(async () => {
  server = await createTestApp();
  org = await createOrganizationWithAdmin(server.db);
  const doc = (await server.app.inject('/api/openapi.json')).json();
  components = doc.components?.schemas ?? {};
  operations = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, OpenApiOperation>>)) {
    for (const [method, op] of Object.entries(item)) {
      const parameters = op.parameters ?? [];
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const body = schema ? resolve(schema) : undefined;
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        body: body ? { properties: body.properties ?? {} } : undefined,
        xmlBodies: Object.keys(op.requestBody?.content ?? {}).some((type) => type.endsWith('/xml')),
      });
    }
  }
  // The routes the document leaves out, for a reason UNPUBLISHED names: hostile input all the same.
  routes = registeredRoutes(server.app);
  const published = new Set(operations.map((op) => `${op.method} ${op.path}`));
  for (const route of routes) {
    const path = documentPath(route.url);
    if (published.has(`${route.method} ${path}`)) continue;
    if (route.method === 'GET' && isConsoleFile(route.url)) {
      operations.push({ method: 'GET', path, pathParams: [], queryParams: [], xmlBodies: false, file: true });
    } else if (unpublishedReason(route)) {
      operations.push({
        method: route.method,
        path,
        pathParams: [...path.matchAll(/\{([\w*]+)\}/g)].map((m) => m[1]!),
        queryParams: [GENERIC_QUERY],
        xmlBodies: true,
      });
    }
  }
});

afterAll(async () => {
  await server?.close();
});

describe('fuzzing every API operation', () => {
  it('finds the operations', () => {
    expect(operations.length).toBeGreaterThan(50);
    expect(operations).toContainEqual(expect.objectContaining({ method: 'POST', path: '/api/signup/site' }));
    // Device discovery, outside /api: published, XML bodies included.
    for (const [method, path] of [
      ['POST', '/autodiscover/autodiscover.xml'],
      ['POST', '/Autodiscover/Autodiscover.xml'],
      ['GET', '/autodiscover/autodiscover.xml'],
      ['GET', '/mail/config-v1.1.xml'],
      ['GET', '/.well-known/autoconfig/mail/config-v1.1.xml'],
      ['GET', '/.well-known/caldav'],
      ['PROPFIND', '/.well-known/carddav'],
    ]) {
      expect(operations).toContainEqual(expect.objectContaining({ method, path }));
    }
    expect(operations).toContainEqual(
      expect.objectContaining({ path: '/autodiscover/autodiscover.xml', method: 'POST', xmlBodies: true }),
    );
  });

  it('covers every route the server registers, each reached by its requests', () => {
    // The listing reads routes outside /api and methods outside OpenAPI.
    expect(routes).toContainEqual({ method: 'PROPFIND', url: '/.well-known/caldav' });
    expect(routes).toContainEqual({ method: 'POST', url: '/oidc/token' });
    const fuzzed = new Set(operations.map((op) => `${op.method} ${op.path}`));
    const left = routes
      .filter((route) => !fuzzed.has(`${route.method} ${documentPath(route.url)}`))
      .map((route) => `${route.method} ${route.url}: publish it (an operationId) or name it in UNPUBLISHED`);
    expect(left).toEqual([]);
    // Every operation's requests land on a route, not on the 404 handler.
    const unreached = operations
      .filter((op) => !server.app.findRoute({ method: op.method, url: fillPath(op.path, { '*': 'fuzz' }) }))
      .map((op) => `${op.method} ${op.path}`);
    expect(unreached).toEqual([]);
  });

  it('answers hostile input from a signed-in admin with no 5xx', async () => {
    const failures: string[] = [];
    let sent = 0;
    let headers: Record<string, string> = {};
    for (const op of operations) {
      // A session per operation: some (sign-out) end the one they are sent with. Files share
      // one: they answer the same to anyone, and there are hundreds.
      if (!op.file || !headers.cookie) ({ headers } = await signInAs(server.db, org.admin));
      for (const request of requestsFor(op)) {
        const status = await send(request, headers);
        sent++;
        if (status >= 500) failures.push(`${status} ${describeRequest(request)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(1000);
  }, 120_000);

  it('answers hostile input from an anonymous caller with no 5xx', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      for (const request of requestsFor(op)) {
        const status = await send(request, {});
        if (status >= 500) failures.push(`${status} ${describeRequest(request)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

/** The provider's parameters an attacker would reach first (client and token lookups). */
const OIDC_PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'nonce',
  'prompt',
  'login_hint',
  'claims',
  'id_token_hint',
  'post_logout_redirect_uri',
  'grant_type',
  'code',
  'code_verifier',
  'refresh_token',
  'token',
  'access_token',
];
const OIDC_VALUES = [
  'a%00b',
  '%ED%A0%80',
  '%FF%FE',
  '%01%1B%0D%0A',
  '%E2%80%AE',
  LONG_ENCODED.slice(0, 50_000),
];

describe('fuzzing the identity provider', () => {
  let endpoints: string[];

  beforeAll(async () => {
    const discovery = (await server.app.inject('/oidc/.well-known/openid-configuration')).json();
    endpoints = [
      discovery.authorization_endpoint,
      discovery.token_endpoint,
      discovery.userinfo_endpoint,
      discovery.end_session_endpoint,
      discovery.introspection_endpoint,
      discovery.revocation_endpoint,
    ]
      .filter((url): url is string => typeof url === 'string')
      .map((url) => new URL(url).pathname);
  });

  it('answers hostile parameters in queries, forms and client credentials with no 5xx', async () => {
    expect(endpoints).toEqual(expect.arrayContaining(['/oidc/auth', '/oidc/token', '/oidc/session/end']));
    const failures: string[] = [];
    const check = async (options: InjectOptions & { url: string }) => {
      const res = await server.app.inject({ ...options, remoteAddress: nextAddress() });
      if (res.statusCode >= 500) failures.push(`${res.statusCode} ${describeRequest(options)}`);
    };
    for (const path of endpoints) {
      for (const name of OIDC_PARAMS) {
        for (const value of OIDC_VALUES) {
          // Other parameters plausible, so the provider gets as far as its lookups.
          const pair = `${name}=${value}${name === 'client_id' ? '' : '&client_id=fuzz'}`;
          for (const accept of ['text/html', 'application/json']) {
            await check({ method: 'GET', url: `${path}?${pair}`, headers: { accept } });
          }
          await check({
            method: 'POST',
            url: path,
            payload: pair,
            headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          });
        }
      }
      // Basic credentials are form-encoded, then base64: raw and encoded bad characters.
      for (const clientId of ['a\u0000b', 'a%00b', '%ED%A0%80', '%FF', '%01']) {
        const basic = Buffer.from(`${clientId}:secret`);
        await check({
          method: 'POST',
          url: path,
          payload: 'grant_type=client_credentials&token=x',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${basic.toString('base64')}`,
          },
        });
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);
});
