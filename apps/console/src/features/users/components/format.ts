/** Dates as the admin's browser shows them; "Never" for a user who has not signed in. */
export function formatDateTime(iso: string | null, never = 'Never'): string {
  if (!iso) return never;
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(iso),
  );
}
