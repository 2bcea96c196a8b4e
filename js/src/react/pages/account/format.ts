// Dates in the reader's locale, for the account settings sections: the language of the texts
// (messages.lang), else the browser's (Intl's default).

/** "26 Nov 2026, 14:05" (in `locale`, else the browser's locale; the reader's time zone). */
export function formatDateTime(date: Date, locale?: string | string[]): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(date);
}

/** "26 Nov 2026" (in `locale`, else the browser's). */
export function formatDate(date: Date, locale?: string | string[]): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium" }).format(date);
}

/** "Berlin, BE, DE" from what the service knows of a place; null when it knows nothing. */
export function formatPlace(place: { cityName: string | null; regionCode: string | null; countryCode: string | null } | null): string | null {
  if (!place) return null;
  const parts = [place.cityName, place.regionCode, place.countryCode].filter((part): part is string => Boolean(part));
  return parts.length ? parts.join(", ") : null;
}
