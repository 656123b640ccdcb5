/**
 * HTTP/1.1 chunked transfer decoding for bodies read back from WARC records (replay, the archive
 * reader) where the producer kept the chunking. Tolerant as pywb and warcio are: LF-only line
 * ends, chunk extensions, missing trailers and a missing final CRLF are accepted; data that does
 * not start with a chunk-size line is returned unchanged, because producers sometimes write
 * `Transfer-Encoding: chunked` over a body they already de-chunked.
 *
 * Written by hand: undici and llhttp de-chunk only on a live socket and do not accept a buffer.
 */

export interface Dechunked {
  body: Buffer;
  /** True when the terminating zero-size chunk was seen. */
  complete: boolean;
}

/** A chunk-size line: hex digits, optional `;extensions`, optional whitespace. */
const SIZE_LINE = /^([0-9a-fA-F]+)[ \t]*(?:;[^\r\n]*)?$/;
const MAX_SIZE_LINE = 1024;

export function dechunk(raw: Buffer): Dechunked {
  const parts: Buffer[] = [];
  let pos = 0;
  let first = true;
  while (pos < raw.length) {
    const lf = raw.indexOf(0x0a, pos);
    const lineEnd = lf < 0 ? raw.length : lf;
    if (lineEnd - pos > MAX_SIZE_LINE) break;
    const line = raw.toString('latin1', pos, lineEnd).replace(/\r$/, '').trim();
    const m = SIZE_LINE.exec(line);
    if (!m || m[1]!.length > 12) {
      if (first) return { body: raw, complete: false };
      break;
    }
    first = false;
    const size = parseInt(m[1]!, 16);
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    if (lf < 0) break; // a size line with no data after it
    const start = lf + 1;
    const end = Math.min(start + size, raw.length);
    parts.push(raw.subarray(start, end));
    if (end < start + size) break; // cut short
    pos = end;
    // The CRLF (or LF) after the chunk data; tolerate its absence.
    if (raw[pos] === 0x0d) pos++;
    if (raw[pos] === 0x0a) pos++;
  }
  return { body: Buffer.concat(parts), complete: false };
}
