import type { Db } from '../../db/database.ts';
import {
  CARD_PAGE,
  cardsOf,
  changedCardsPage,
  presentCardsPage,
  type CardKind,
  type CardRow,
} from './directory.repository.ts';
import {
  cardFileOf,
  cardProps,
  cardRefOf,
  collectionProps,
  needsText,
  propRequestOf,
  syncTokenOf,
  versionOfToken,
  type DirectoryView,
  type PropRequest,
} from './directory-props.ts';
import { cardFilterOf, resultLimitOf } from './directory-query.ts';
import {
  CARDDAV,
  child,
  childrenNamed,
  DAV,
  errorXml,
  goneXml,
  multistatusXml,
  responseXml,
  type XmlElement,
} from './directory-xml.ts';

/**
 * The organisation's address book's answers to PROPFIND and REPORT (sync-collection,
 * addressbook-multiget, addressbook-query), read from the card rows page by page (keyset) and
 * the cards' sources for the page at hand: one address book per organisation, whoever asks.
 */
export interface DirectoryContext {
  db: Db;
  organizationId: string;
  view: DirectoryView;
}

export interface DavAnswer {
  status: number;
  body: string;
}

const multistatus = (responses: string[], syncToken?: string): DavAnswer => ({
  status: 207,
  body: multistatusXml(responses, syncToken),
});

/** Every card there now, page by page, with its text when `withText`. */
async function* presentCards(ctx: DirectoryContext, withText: boolean) {
  let after: { kind: CardKind; sourceId: string } | undefined;
  for (;;) {
    const page = await presentCardsPage(ctx.db, ctx.organizationId, after);
    const texts = withText ? await textsOf(ctx, page) : undefined;
    for (const row of page) yield { row, vcard: texts?.get(`${row.kind}:${row.sourceId}`)?.vcard };
    if (page.length < CARD_PAGE) return;
    after = page.at(-1);
  }
}

const textsOf = (ctx: DirectoryContext, rows: { kind: CardKind; sourceId: string }[]) =>
  cardsOf(ctx.db, ctx.organizationId, ctx.view.organization, rows);

const hrefOf = (ctx: DirectoryContext, row: { kind: string; sourceId: string }) =>
  `${ctx.view.collectionHref}${cardFileOf(row)}`;

function cardResponse(ctx: DirectoryContext, row: CardRow, vcard: string | undefined, request: PropRequest) {
  // The card went between its row's read and its text's: the next sync reports it again.
  if (needsText(request) && vcard === undefined) return goneXml(hrefOf(ctx, row));
  const { found, missing } = cardProps(row, vcard, request);
  return responseXml(hrefOf(ctx, row), found, missing);
}

/** The collection's own `<D:response>`: also what the home's listing gets (directory-home.ts). */
export function collectionResponse(view: DirectoryView, request: PropRequest, standalone = false): string {
  const { found, missing } = collectionProps(view, request);
  return responseXml(view.collectionHref, found, missing, standalone);
}

export async function propfindCollection(
  ctx: DirectoryContext,
  depth: '0' | '1',
  body: XmlElement | undefined,
): Promise<DavAnswer> {
  const request = propRequestOf(body);
  const responses = [collectionResponse(ctx.view, request)];
  if (depth === '1') {
    for await (const { row, vcard } of presentCards(ctx, needsText(request))) {
      responses.push(cardResponse(ctx, row, vcard, request));
    }
  }
  return multistatus(responses);
}

export async function propfindCard(
  ctx: DirectoryContext,
  file: string,
  body: XmlElement | undefined,
): Promise<DavAnswer | undefined> {
  const card = await cardNamed(ctx, file);
  if (!card) return undefined;
  const request = propRequestOf(body);
  return multistatus([cardResponse(ctx, card.row, card.vcard, request)]);
}

/** One card by its file name, with its text; undefined when there is no such card (any more). */
export async function cardNamed(ctx: DirectoryContext, file: string) {
  const ref = cardRefOf(file);
  if (!ref) return undefined;
  return (await textsOf(ctx, [ref])).get(`${ref.kind}:${ref.sourceId}`);
}

export async function report(ctx: DirectoryContext, root: XmlElement | undefined): Promise<DavAnswer> {
  if (root?.ns === DAV && root.name === 'sync-collection') return syncCollection(ctx, root);
  if (root?.ns === CARDDAV && root.name === 'addressbook-multiget') return multiget(ctx, root);
  if (root?.ns === CARDDAV && root.name === 'addressbook-query') return query(ctx, root);
  return { status: 403, body: errorXml(DAV, 'supported-report') };
}

/**
 * RFC 6578: the cards changed after the token's version (removed ones as 404), and the current
 * version as the new token; no token: every card. A token Atrium did not give, or from a version
 * this organisation has not reached (a database restored from backup), is refused with
 * `valid-sync-token`, and the client starts again from none.
 */
async function syncCollection(ctx: DirectoryContext, root: XmlElement): Promise<DavAnswer> {
  const request = propRequestOf(root);
  const withText = needsText(request);
  const token = child(root, DAV, 'sync-token')?.text.trim() ?? '';
  const responses: string[] = [];
  const upTo = ctx.view.version;
  if (token === '') {
    for await (const { row, vcard } of presentCards(ctx, withText)) {
      responses.push(cardResponse(ctx, row, vcard, request));
    }
    return multistatus(responses, syncTokenOf(upTo));
  }
  const since = versionOfToken(token);
  if (since === undefined || since > upTo) return { status: 403, body: errorXml(DAV, 'valid-sync-token') };
  let after: { version: number; kind: CardKind; sourceId: string } | undefined;
  for (;;) {
    const page = await changedCardsPage(ctx.db, ctx.organizationId, { since, upTo }, after);
    const present = page.filter((row) => row.present);
    const texts = withText && present.length > 0 ? await textsOf(ctx, present) : undefined;
    for (const row of page) {
      responses.push(
        row.present
          ? cardResponse(ctx, row, texts?.get(`${row.kind}:${row.sourceId}`)?.vcard, request)
          : goneXml(hrefOf(ctx, row)),
      );
    }
    if (page.length < CARD_PAGE) break;
    after = page.at(-1);
  }
  return multistatus(responses, syncTokenOf(upTo));
}

/** The file name an href of this collection names, whatever form the client sends it in. */
function fileOfHref(ctx: DirectoryContext, href: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(new URL(href.trim(), 'http://host').pathname);
  } catch {
    return undefined;
  }
  if (!path.startsWith(ctx.view.collectionHref)) return undefined;
  return path.slice(ctx.view.collectionHref.length);
}

async function multiget(ctx: DirectoryContext, root: XmlElement): Promise<DavAnswer> {
  const request = propRequestOf(root);
  const hrefs = childrenNamed(root, DAV, 'href').map((h) => h.text.trim());
  const refs = hrefs.map((href) => {
    const file = fileOfHref(ctx, href);
    return file === undefined ? undefined : cardRefOf(file);
  });
  const wanted = refs.filter((ref) => ref !== undefined);
  const cards = new Map<string, { row: CardRow; vcard: string }>();
  for (let i = 0; i < wanted.length; i += CARD_PAGE) {
    for (const [k, card] of await textsOf(ctx, wanted.slice(i, i + CARD_PAGE))) cards.set(k, card);
  }
  const responses = hrefs.map((href, i) => {
    const ref = refs[i];
    const card = ref && cards.get(`${ref.kind}:${ref.sourceId}`);
    return card ? cardResponse(ctx, card.row, card.vcard, request) : goneXml(href);
  });
  return multistatus(responses);
}

async function query(ctx: DirectoryContext, root: XmlElement): Promise<DavAnswer> {
  const request = propRequestOf(root);
  const matches = cardFilterOf(root);
  const limit = resultLimitOf(root);
  const responses: string[] = [];
  for await (const { row, vcard } of presentCards(ctx, true)) {
    if (vcard === undefined || !matches(vcard)) continue;
    if (limit !== undefined && responses.length >= limit) {
      // RFC 6352 §8.6.1: a truncated answer says so on the collection.
      responses.push(
        `<D:response><D:href>${ctx.view.collectionHref}</D:href><D:status>HTTP/1.1 507 Insufficient Storage</D:status></D:response>`,
      );
      break;
    }
    responses.push(cardResponse(ctx, row, vcard, request));
  }
  return multistatus(responses);
}

/** GET of the collection: every card, one after the other (as Radicale answers it). */
export async function allCards(ctx: DirectoryContext): Promise<string> {
  const parts: string[] = [];
  for await (const { vcard } of presentCards(ctx, true)) if (vcard) parts.push(vcard);
  return parts.join('');
}
