/**
 * CDXJ lines as pywb and `warcio cdx-index` write them:
 *
 *   com,example)/path?a=1 20240305102030 {"url":"…","mime":"text/html","status":"200","digest":"…","length":"1234","offset":"0","filename":"x.warc.gz"}
 *
 * urlkey is the python-surt key, timestamp the 14-digit WARC-Date, and the JSON keeps pywb's
 * habit of writing numbers as strings. Fields with no value are left out. Lines sort bytewise.
 */

export interface CdxjEntry {
  urlkey: string;
  /** 14 digits, UTC. */
  timestamp: string;
  url: string;
  /** HTTP Content-Type without parameters, `warc/revisit`, or the record's Content-Type. */
  mime?: string;
  /** HTTP status of a response or revisit. */
  status?: string;
  /** Payload digest without a `sha1:` label (other labels are kept: `sha-256:…`). */
  digest?: string;
  /** Bytes on disk from `offset` (the gzip member, or the record without its trailing CRLF CRLF). */
  length: number;
  offset: number;
  filename: string;
  /** Request method when not GET (the urlkey then has `__wb_method=`). */
  method?: string;
  /** The request body as a query string, as keyed (cut at 4096 characters). */
  requestBody?: string;
}

/** One CDXJ line (no newline). */
export function formatCdxj(e: CdxjEntry): string {
  const json: Record<string, string> = { url: e.url };
  if (e.mime !== undefined) json.mime = e.mime;
  if (e.status !== undefined) json.status = e.status;
  if (e.digest !== undefined) json.digest = e.digest;
  json.length = String(e.length);
  json.offset = String(e.offset);
  json.filename = e.filename;
  if (e.method !== undefined) json.method = e.method;
  if (e.requestBody !== undefined) json.requestBody = e.requestBody;
  return `${e.urlkey} ${e.timestamp} ${JSON.stringify(json)}`;
}

/**
 * Sort CDXJ lines bytewise (UTF-8 order), in memory. JavaScript's default sort compares UTF-16
 * code units, which differs from UTF-8 byte order only between supplementary characters and
 * U+E000–U+FFFF, so the fast default is used unless a line holds a surrogate pair.
 * In memory: fine up to a few million lines (~1 GB of heap for 3 million); a bigger index
 * should be sorted in runs and merged.
 */
/** CDXJ is sorted bytewise: sort in place, with the engine's native sort when no line holds a surrogate. */
export function sortCdxjLines(lines: string[]): string[] {
  return lines.some((l) => SURROGATE.test(l)) ? lines.sort(compareBytewise) : lines.sort();
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * Compare as UTF-8 bytes would. JavaScript's `<` compares UTF-16 code units, which differs from
 * UTF-8 byte order only when one side has a surrogate (a character above U+FFFF) and the other
 * a character in U+E000–U+FFFF at the first difference; that case is corrected here.
 */
export function compareBytewise(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}
