import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError, setCsrfToken } from './api-client.ts';

afterEach(() => {
  vi.unstubAllGlobals();
  setCsrfToken(null);
});

function stubFetch(status: number, body: unknown) {
  const fetchMock = vi.fn(
    async () =>
      new Response(body === undefined ? null : JSON.stringify(body), {
        status,
        headers: { 'Content-Type': 'application/json' },
      }),
  );
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

describe('api client', () => {
  it('gets JSON from the same origin without a CSRF header', async () => {
    setCsrfToken('tok');
    const fetchMock = stubFetch(200, { ok: true });
    await expect(api.get('/api/health', { query: { a: 1, b: undefined } })).resolves.toEqual({ ok: true });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/health?a=1');
    expect(init.credentials).toBe('same-origin');
    expect((init.headers as Record<string, string>)['X-CSRF-Token']).toBeUndefined();
  });

  it('sends the CSRF token and a JSON body on writes', async () => {
    setCsrfToken('tok');
    const fetchMock = stubFetch(200, { id: 1 });
    await api.post('/api/things', { name: 'x' });
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(init.method).toBe('POST');
    expect(init.body).toBe('{"name":"x"}');
    const headers = init.headers as Record<string, string>;
    expect(headers['X-CSRF-Token']).toBe('tok');
    expect(headers['Content-Type']).toBe('application/json');
  });

  it('throws an ApiError with the code, message and fields of the error body', async () => {
    stubFetch(422, { error: { code: 'validation', message: 'Bad input', fields: { name: 'Required' } } });
    const error = await api.post('/api/things', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 422,
      code: 'validation',
      message: 'Bad input',
      fields: { name: 'Required' },
    });
  });

  it('throws an ApiError for a non-JSON failure and for an unreachable server', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('oops', { status: 502, statusText: 'Bad Gateway' })),
    );
    await expect(api.get('/api/x')).rejects.toMatchObject({ status: 502, code: 'http_error' });
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    await expect(api.get('/api/x')).rejects.toMatchObject({ status: 0, code: 'network_error' });
  });

  it('returns undefined for an empty success', async () => {
    stubFetch(204, undefined);
    await expect(api.delete('/api/things/1')).resolves.toBeUndefined();
  });
});
