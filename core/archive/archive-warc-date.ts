/**
 * WARC-Date → the 14-digit timestamp the capture index sorts and looks up by, and `trove index`
 * writes in CDXJ: one rule for both. Lenient, because archives hold dates from many writers
 * (a lower-case `t`, fractions, missing seconds); capture-timestamp.ts accepts only the strict form.
 */

/**
 * 14-digit timestamp of a WARC-Date, leniently: fractions dropped, missing seconds (or minutes)
 * taken as zero (`2019-08-15T01:02` → `20190815010200`, as UKWA's indexer does).
 */
export function timestamp14(date: string | null): string | null {
  if (!date) return null;
  // A capture's records (response, request, metadata) share their date and are indexed one
  // after the other: the last answer is kept, as surtKey keeps its last key (issue 20).
  if (date === last.date) return last.ts;
  const ts = parse14(date);
  last.date = date;
  last.ts = ts;
  return ts;
}

const last: { date: string; ts: string | null } = { date: '', ts: null };

function parse14(date: string): string | null {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})(?:[Tt ](\d{2}):?(\d{2})?(?::?(\d{2}))?)?/.exec(date.trim());
  if (!m) return null;
  const ts = `${m[1]}${m[2]}${m[3]}${m[4] ?? '00'}${m[5] ?? '00'}${m[6] ?? '00'}`;
  const month = Number(m[2]);
  const day = Number(m[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 ? ts : null;
}
