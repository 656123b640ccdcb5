/**
 * WARC header blocks: the version line and the `Name: value` fields after it.
 *
 * Lenient the way real producers need: LF-only and CR CR LF line ends, folded (continuation)
 * lines, names in any case, unknown and repeated fields kept in order. What is lenient here is
 * reported back (line-ending style, dropped lines) so `trove check` can still flag it.
 */

export type HeaderList = [string, string][];

export type LineEnding = 'crlf' | 'lf' | 'crcrlf' | 'mixed';

export interface ParsedFields {
  /** Fields in file order; folded lines joined with one space; names and values trimmed. */
  headers: HeaderList;
  /** Lines that were neither a field nor a continuation (dropped). */
  badLines: string[];
  lineEnding: LineEnding;
}

/** WARC versions this reader knows (0.17 and 0.18 are the drafts Heritrix 1 and IA wrote). */
export const KNOWN_WARC_VERSIONS = new Set(['0.17', '0.18', '1.0', '1.1']);

const VERSION_LINE = /^WARC\/(\d+\.\d+)[ \t]*$/i;

/** `WARC/1.0` (upper-cased prefix) from a version line, or null if the line is not one. */
export function parseVersionLine(line: string): string | null {
  const m = VERSION_LINE.exec(trimLineEnd(line));
  return m ? `WARC/${m[1]}` : null;
}

/** The text of a line without its LF and any CRs before it. */
export function trimLineEnd(line: string): string {
  let end = line.length;
  if (end > 0 && line.charCodeAt(end - 1) === 0x0a) end--;
  while (end > 0 && line.charCodeAt(end - 1) === 0x0d) end--;
  return line.slice(0, end);
}

/** The line ending of one raw line (with its LF), or null when it has no LF. */
export function lineEndingOf(line: string): Exclude<LineEnding, 'mixed'> | null {
  const n = line.length;
  if (n === 0 || line.charCodeAt(n - 1) !== 0x0a) return null;
  if (n >= 3 && line.charCodeAt(n - 2) === 0x0d && line.charCodeAt(n - 3) === 0x0d) return 'crcrlf';
  if (n >= 2 && line.charCodeAt(n - 2) === 0x0d) return 'crlf';
  return 'lf';
}

/**
 * Parse field lines (everything after the version line, up to and including the empty line
 * that ends the block).
 */
export function parseFieldLines(text: string): ParsedFields {
  const headers: HeaderList = [];
  const badLines: string[] = [];
  let ending: LineEnding | null = null;
  let pos = 0;
  while (pos < text.length) {
    let lf = text.indexOf('\n', pos);
    if (lf < 0) lf = text.length;
    // The line is [pos, end): without its LF and the CRs before it.
    let end = lf;
    while (end > pos && text.charCodeAt(end - 1) === 0x0d) end--;
    if (lf < text.length) {
      const e: LineEnding = lf - end === 0 ? 'lf' : lf - end === 1 ? 'crlf' : 'crcrlf';
      ending = ending === null || ending === e ? e : 'mixed';
    }
    const start = pos;
    pos = lf + 1;
    if (end === start) break;
    const c = text.charCodeAt(start);
    if (c === 0x20 || c === 0x09) {
      // A folded line continues the previous value (RFC 822 style, as WARC/0.17 writers did).
      const last = headers.at(-1);
      const more = text.slice(start, end).trim();
      if (last) last[1] = last[1] === '' ? more : more === '' ? last[1] : `${last[1]} ${more}`;
      else badLines.push(text.slice(start, end));
      continue;
    }
    const colon = text.indexOf(':', start);
    if (colon <= start || colon >= end) {
      badLines.push(text.slice(start, end));
      continue;
    }
    headers.push([text.slice(start, colon).trim(), text.slice(colon + 1, end).trim()]);
  }
  return { headers, badLines, lineEnding: ending ?? 'crlf' };
}

/** A WARC-Target-URI without the `<…>` wget 1.14–1.20 wrapped it in. */
export function unwrapTargetUri(value: string | null): string | null {
  if (value === null) return null;
  const v = value.trim();
  return v.length >= 2 && v.startsWith('<') && v.endsWith('>') ? v.slice(1, -1).trim() : v;
}

/** Content-Length as a safe non-negative integer, or null when missing or not a number. */
export function parseContentLength(value: string | null): number | null {
  if (value === null || !/^\d{1,16}$/.test(value.trim())) return null;
  const n = Number(value.trim());
  return Number.isSafeInteger(n) ? n : null;
}
