import { DAV_PATH } from '../devices/device-endpoints.ts';
import type { RadicaleAddress } from './radicale-client.ts';
import { propRequestOf, type DirectoryView } from './directory-props.ts';
import { DavXmlError, parseDavXml } from './directory-xml.ts';
import { collectionResponse } from './directory.service.ts';

/**
 * The home's listing (PROPFIND Depth 1 of `/dav/<user>/`), which is how clients find a user's
 * address books (DAVx5, iOS, Thunderbird, vdirsyncer): Radicale answers it, and Atrium adds the
 * organisation's address book to the answer, with the same properties the collection itself
 * answers. Radicale holds nothing for it, so nothing is stored per account; an old copy Radicale
 * still lists (before directory-copies.job.ts removed it) is left out of the answer.
 */
export async function mergeDirectoryIntoHome(o: {
  radicale: RadicaleAddress;
  user: string;
  depth: string | undefined;
  body: string;
  view: DirectoryView | undefined;
}): Promise<{ status: number; contentType?: string; body: string }> {
  let response: Response;
  try {
    response = await fetch(`http://${o.radicale.host}:${o.radicale.port}/${encodeURIComponent(o.user)}/`, {
      method: 'PROPFIND',
      headers: {
        'x-remote-user': o.user,
        // Radicale writes its hrefs under the prefix Caddy strips (/dav).
        'x-script-name': DAV_PATH.replace(/\/$/, ''),
        ...(o.depth === undefined ? {} : { depth: o.depth }),
        ...(o.body ? { 'content-type': 'application/xml; charset=utf-8' } : {}),
      },
      body: o.body || undefined,
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    return { status: 502, body: 'The calendar server did not answer: try again in a moment.\n' };
  }
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? undefined;
  if (response.status !== 207 || o.depth === '0' || !o.view)
    return { status: response.status, contentType, body: text };
  let entry: string;
  try {
    entry = collectionResponse(o.view, propRequestOf(parseDavXml(o.body)), true);
  } catch (error) {
    if (!(error instanceof DavXmlError)) throw error;
    // Radicale read it; Atrium could not: the listing as Radicale gave it.
    return { status: 207, contentType, body: text };
  }
  return { status: 207, contentType, body: withEntry(text, entry, o.view.collectionHref) };
}

const RESPONSE = /<((?:[\w.-]+:)?)response\b[\s\S]*?<\/\1response>/g;
const MULTISTATUS_END = /<\/(?:[\w.-]+:)?multistatus>\s*$/;

/** Radicale's multistatus with its own `directory` (an old copy) left out and Atrium's added last. */
export function withEntry(multistatus: string, entry: string, collectionHref: string): string {
  const old = `${collectionHref}<`;
  const kept = multistatus.replace(RESPONSE, (response) => (response.includes(old) ? '' : response));
  const end = MULTISTATUS_END.exec(kept);
  if (!end) return multistatus;
  return `${kept.slice(0, end.index)}${entry}${kept.slice(end.index)}`;
}
