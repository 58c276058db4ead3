/**
 * The first of `base`, `base 2`, `base 3`… that none of `taken` is (ignoring case, so no two names
 * in the list read alike), so a second iPhone is offered "iPhone 2" instead of a name the
 * server refuses (issue 42 item 5).
 */
export function freeDeviceName(base: string, taken: readonly string[]): string {
  const used = new Set(taken.map((name) => name.trim().toLowerCase()));
  if (!used.has(base.toLowerCase())) return base;
  for (let n = 2; ; n += 1) {
    const candidate = `${base} ${n}`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}
