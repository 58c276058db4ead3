const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A server timestamp in the viewer's locale and time zone; a dash when there is none. */
export const formatDateTime = (iso: string | null) => (iso ? dateTime.format(new Date(iso)) : '—');
