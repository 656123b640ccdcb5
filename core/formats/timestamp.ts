/**
 * Fixed-width UTC timestamps made from a clock reading: 14 digits (`yyyyMMddHHmmss`, the WARC
 * and CDX timestamp the capture index sorts by) and 17 digits (`yyyyMMddHHmmssSSS`, Heritrix's
 * ArchiveUtils.get17DigitDate, used in WARC file names and crawl.log fetch timings). Both are
 * cut from the ISO form, so they only hold for years 0000–9999; `isFourDigitYear` says whether
 * a date has one, for callers that must refuse the rest.
 */

function digits(at: Date | number): string {
  return new Date(at).toISOString().replace(/\D/g, '');
}

/** Whether the date's ISO form has a plain 4-digit year (0000–9999). */
export function isFourDigitYear(at: Date | number): boolean {
  return /^\d{4}-/.test(new Date(at).toISOString());
}

/** `yyyyMMddHHmmss`, UTC. */
export function timestamp14(at: Date | number): string {
  return digits(at).slice(0, 14);
}

/** `yyyyMMddHHmmssSSS`, UTC. */
export function timestamp17(at: Date | number): string {
  return digits(at).slice(0, 17);
}

/** `20240305102030` → `2024-03-05T10:20:30Z`; `fraction` (e.g. `.123`) goes before the `Z`. */
export function isoFromTimestamp14(ts: string, fraction = ''): string {
  return `${ts.slice(0, 4)}-${ts.slice(4, 6)}-${ts.slice(6, 8)}T${ts.slice(8, 10)}:${ts.slice(10, 12)}:${ts.slice(12, 14)}${fraction}Z`;
}
