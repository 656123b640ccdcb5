/**
 * The Monitor's times of day (`14:03:27`, 24-hour, the machine's zone), one helper for the recent
 * URIs, the log lines and the events, so the three lists read alike.
 */
export const clockTime = (t: number): string => new Date(t).toLocaleTimeString([], { hour12: false });

/** A log line's ISO time as a time of day; a time that does not parse is shown as it is. */
export const logClockTime = (iso: string): string => (Number.isFinite(Date.parse(iso)) ? clockTime(Date.parse(iso)) : iso);
