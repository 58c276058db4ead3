import { COUNTRY_CODES } from '@atrium/contracts/organizations';

/** Countries by their English names, for the select. */
export function countryOptions(): { value: string; label: string }[] {
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  return COUNTRY_CODES.map((code) => ({ value: code, label: names.of(code) ?? code })).sort((a, b) =>
    a.label.localeCompare(b.label),
  );
}

/**
 * The browser's IANA time zones (the server accepts any zone the runtime knows). `current` is
 * kept even when the list leaves it out (Chromium lists no plain "UTC").
 */
export function timeZoneOptions(current?: string | null): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return current && !zones.includes(current) ? [current, ...zones] : zones;
}

/** The visitor's own zone, a sensible default for an empty profile. */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
