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
