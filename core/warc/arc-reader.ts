/**
 * ARC (the Internet Archive's format before WARC) record header lines, turned into WARC-like
 * fields so the rest of Trove reads ARC and WARC the same way.
 *
 * An ARC v1 record is one header line `URL IP-address Archive-date Content-type Archive-length`,
 * then Archive-length bytes (for HTTP URLs: the raw HTTP response), then a newline. The first
 * record of a file is `filedesc://NAME …`, whose content starts with the version block
 * (`1 0 origin`, then the field-names line). ARC v2 lines carry more fields; the length is
 * always the last one. Written by hand: no maintained JavaScript library reads ARC (warcio.js
 * does not).
 */
import type { HeaderList } from './read-headers.ts';

export interface ArcHeaderLine {
  url: string;
  ip: string;
  /** As written: 14 digits usually, sometimes more (`201404010000000000`) or fewer. */
  date: string;
  mime: string;
  /** Archive-length, or null when it is not a number (`-1`, `abc`). */
  length: number | null;
  rawLength: string;
}

const DATE = /^\d{8,18}$/;

/**
 * Parse an ARC header line (without its newline), or null if it does not look like one. A URL
 * containing spaces (some old crawlers wrote them) is put back together from the front fields.
 */
export function parseArcHeaderLine(line: string): ArcHeaderLine | null {
  const fields = line.trim().split(/ +/);
  if (fields.length < 5) return null;
  // v1 is url ip date mime length; v2 adds result-code checksum location offset filename before length.
  const v2 = fields.length >= 10 && DATE.test(fields[2]!) && /^\d{3}$|^-$/.test(fields[4]!);
  const n = fields.length;
  const urlEnd = v2 ? 1 : n - 4;
  const url = fields.slice(0, urlEnd).join('%20');
  const ip = fields[urlEnd]!;
  const date = fields[urlEnd + 1]!;
  const mime = fields[urlEnd + 2]!;
  const rawLength = fields[n - 1]!;
  if (!DATE.test(date) || !/^[a-z][a-z0-9+.-]*:/i.test(url)) return null;
  const length = /^\d{1,16}$/.test(rawLength) ? Number(rawLength) : null;
  return { url, ip, date, mime, length, rawLength };
}

/** `20140216050221` → `2014-02-16T05:02:21Z` (first 14 digits; missing ones are zero). */
export function arcDateToIso(date: string): string {
  const d = (date + '00000000000000').slice(0, 14);
  return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}Z`;
}

/** `ARC/1.0` from the first content line of a filedesc record (`1 0 InternetArchive`), if there is one. */
export function arcVersionOf(filedescContent: Buffer): string | null {
  const m = /^(\d+) (\d+)/.exec(filedescContent.toString('latin1', 0, 32));
  return m ? `ARC/${m[1]}.${m[2]}` : null;
}

/**
 * WARC-like fields for an ARC record: `warcinfo` for the filedesc record, `response` for the
 * others (as arc2warc converts them). The ARC content type goes to WARC-Identified-Payload-Type;
 * Content-Type says what the block is (an HTTP response for http(s) URLs).
 */
export function arcToWarcFields(h: ArcHeaderLine, contentLength: number): HeaderList {
  const filedesc = h.url.toLowerCase().startsWith('filedesc:');
  const http = /^https?:/i.test(h.url);
  const fields: HeaderList = [
    ['WARC-Type', filedesc ? 'warcinfo' : 'response'],
    ['WARC-Target-URI', h.url],
    ['WARC-Date', arcDateToIso(h.date)],
  ];
  if (h.ip && h.ip !== '-') fields.push(['WARC-IP-Address', h.ip]);
  fields.push(['Content-Type', http ? 'application/http; msgtype=response' : h.mime]);
  if (h.mime && h.mime !== '-' && !filedesc) fields.push(['WARC-Identified-Payload-Type', h.mime]);
  fields.push(['Content-Length', String(contentLength)]);
  return fields;
}
