/**
 * A LIKE pattern for "starts with": `Ann  Lee` → `ann lee%`, lower-cased with runs of spaces
 * collapsed, and LIKE's own wildcards (`%`, `_`) and its escape (`\`) in the text taken literally.
 * Compared against lower-cased keys indexed with text_pattern_ops, so the match is an index range.
 */
export function prefixPattern(q: string): string {
  return (
    q
      .toLowerCase()
      .replace(/\s+/g, ' ')
      .replace(/[\\%_]/g, '\\$&') + '%'
  );
}

/**
 * A LIKE pattern for "holds the text anywhere": `Acme.` → `%acme.%`, as prefixPattern writes it;
 * null below 3 characters, where a trigram index cannot narrow anything (prefixes still match).
 */
export function containsPattern(q: string): string | null {
  const text = prefixPattern(q).slice(0, -1);
  return text.replace(/\\(.)/g, '$1').trim().length < 3 ? null : `%${text}%`;
}
