import { CARDDAV, child, childrenNamed, type XmlElement } from './directory-xml.ts';

/**
 * CardDAV's addressbook-query filter (RFC 6352 §10.5) on a card Atrium made: prop-filters with
 * text-match (equals, contains, starts-with, ends-with; both collations compare without case)
 * and is-not-defined. An empty filter, which clients send to list everything, matches every card.
 * A param-filter is not judged (the cards carry only TYPE parameters): it matches.
 */
export type CardFilter = (vcard: string) => boolean;

interface Line {
  name: string;
  value: string;
}

function linesOf(vcard: string): Line[] {
  return vcard
    .split(/\r?\n/)
    .filter((line) => line.includes(':'))
    .map((line) => {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).split(';')[0]!.toUpperCase();
      const value = line
        .slice(colon + 1)
        .replace(/\\n/gi, '\n')
        .replace(/\\([,;\\])/g, '$1');
      return { name, value };
    });
}

function textMatch(match: XmlElement, value: string): boolean {
  const wanted = match.text.toLowerCase();
  const actual = value.toLowerCase();
  const type = match.attributes['match-type'] ?? 'contains';
  const hit =
    type === 'equals'
      ? actual === wanted
      : type === 'starts-with'
        ? actual.startsWith(wanted)
        : type === 'ends-with'
          ? actual.endsWith(wanted)
          : actual.includes(wanted);
  return match.attributes['negate-condition'] === 'yes' ? !hit : hit;
}

function propFilter(filter: XmlElement, lines: Line[]): boolean {
  const name = (filter.attributes.name ?? '').toUpperCase();
  const values = lines.filter((line) => line.name === name).map((line) => line.value);
  if (child(filter, CARDDAV, 'is-not-defined')) return values.length === 0;
  const tests = childrenNamed(filter, CARDDAV, 'text-match');
  if (tests.length === 0) return values.length > 0;
  const results = tests.map((test) => values.some((value) => textMatch(test, value)));
  return filter.attributes.test === 'allof' ? results.every(Boolean) : results.some(Boolean);
}

export function cardFilterOf(query: XmlElement): CardFilter {
  const filter = child(query, CARDDAV, 'filter');
  const props = childrenNamed(filter, CARDDAV, 'prop-filter');
  if (!filter || props.length === 0) return () => true;
  const allOf = filter.attributes.test === 'allof';
  return (vcard) => {
    const lines = linesOf(vcard);
    const results = props.map((p) => propFilter(p, lines));
    return allOf ? results.every(Boolean) : results.some(Boolean);
  };
}

/** `<CR:limit><CR:nresults>n</CR:nresults></CR:limit>`, when the query has one. */
export function resultLimitOf(query: XmlElement): number | undefined {
  const n = child(child(query, CARDDAV, 'limit'), CARDDAV, 'nresults');
  const value = n ? Number(n.text.trim()) : NaN;
  return Number.isInteger(value) && value > 0 ? value : undefined;
}
