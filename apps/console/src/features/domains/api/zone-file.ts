import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, type ApiPath } from '../../../lib/api-client.ts';
import { domainsKeys } from './keys.ts';

/** The DNS mapping as a BIND zone file (`<domain>.zone`): a plain GET with the session cookie. */
export const zoneFileUrl = (id: string): ApiPath => `/api/domains/${encodeURIComponent(id)}/zone-file`;

/** The zone file's text, for "Copy all" (the download link lets the browser save the same file). */
export async function fetchZoneFile(id: string, signal?: AbortSignal): Promise<string> {
  let response: Response;
  try {
    response = await fetch(zoneFileUrl(id), {
      headers: { Accept: 'text/dns, text/plain' },
      credentials: 'same-origin',
      signal: signal ?? null,
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError(0, { code: 'network_error', message: 'The server could not be reached.' });
  }
  const text = await response.text();
  if (!response.ok) {
    let body: { error?: { code?: unknown; message?: unknown } } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = undefined;
    }
    const error = body?.error;
    throw new ApiError(
      response.status,
      typeof error?.code === 'string' && typeof error.message === 'string'
        ? { code: error.code, message: error.message }
        : {
            code: 'http_error',
            message: response.statusText || `Request failed with status ${response.status}`,
          },
    );
  }
  return text;
}

export const zoneFileQuery = (id: string) =>
  queryOptions({ queryKey: domainsKeys.zoneFile(id), queryFn: ({ signal }) => fetchZoneFile(id, signal) });

export const useZoneFile = (id: string) => useQuery(zoneFileQuery(id));
