/**
 * 14-digit WARC timestamps (`YYYYMMDDhhmmss`, UTC) as the capture index stores them. Being fixed
 * width, they sort as text in time order, so the index compares them as strings and only turns
 * them into seconds to measure "closest".
 */
import { TroveError } from '../errors.ts';

const TS14 = /^\d{14}$/;

export function isTimestamp14(ts: string): boolean {
  return TS14.test(ts);
}

/**
 * Pad a partial timestamp (`2024`, `202403`, …) to 14 digits at the start of that period, as
 * pywb does for replay URLs (`/2024/` means "around the start of 2024"). Throws CAPTURE_BAD_TIMESTAMP.
 */
export function padTimestamp(ts: string): string {
  if (!/^\d{4,14}$/.test(ts)) {
    throw new TroveError('CAPTURE_BAD_TIMESTAMP', `not a WARC timestamp: ${ts}`, { ts });
  }
  return ts + '00000101000000'.slice(ts.length);
}

/** Seconds since the epoch for a 14-digit timestamp. */
export function timestampSeconds(ts14: string): number {
  const n = (a: number, b: number) => Number(ts14.slice(a, b));
  return Date.UTC(n(0, 4), n(4, 6) - 1, n(6, 8), n(8, 10), n(10, 12), n(12, 14)) / 1000;
}

/** The 14-digit timestamp of a WARC-Date (`2024-03-05T10:20:30Z`, fractions allowed). */
export function timestampFromWarcDate(date: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z$/.exec(date.trim());
  return m ? m.slice(1, 7).join('') : null;
}
