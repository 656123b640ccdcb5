/**
 * Reading CDXJ files written by someone else (pywb, `warcio cdx-index`, `trove index`, a WACZ's
 * index): `urlkey timestamp {json}` per line. Hostile or damaged input must end in a typed
 * error naming the line, never in a silent skip (a CDX11 file or a garbled one would otherwise
 * load as "0 captures") and never in unbounded memory (a file with no newline is read in bounded
 * pieces, and a line longer than MAX_CDXJ_LINE is refused).
 *
 * Lines that carry no capture are passed over: blank lines, `#` comments and pywb's `!meta`
 * header lines.
 */
import type { Readable } from 'node:stream';
import { TroveError } from '../errors.ts';

/** Longest line accepted. Real lines are well under 10 KiB (a POST key is cut at 4096 characters). */
export const MAX_CDXJ_LINE = 1 << 20;

export interface CdxjLine {
  urlkey: string;
  /** 4 to 14 digits. */
  timestamp: string;
  json: Record<string, unknown>;
  /** 1-based line number in the file. */
  line: number;
  /** Byte offset of the line's start in the file. */
  offset: number;
}

const CDXJ_LINE = /^(\S+) (\d{4,14}) (\{.*\})\s*$/s;

function bad(where: { line: number; offset: number }, why: string, file?: string): TroveError {
  return new TroveError('CDXJ_BAD_LINE', `${file ? `${file}: ` : ''}line ${where.line} (byte ${where.offset}) is not a CDXJ line: ${why}`, { ...where, ...(file ? { file } : {}) });
}

/**
 * One line (without its line end) → the capture it describes, null for a line with none, or a
 * CDXJ_BAD_LINE TroveError. `url` must be a string: every producer writes it, and a capture
 * without one cannot be used.
 */
export function parseCdxjLine(text: string, where: { line: number; offset: number }, file?: string): CdxjLine | null {
  const t = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (t.trim() === '' || t.startsWith('#') || t.startsWith('!')) return null;
  const m = CDXJ_LINE.exec(t);
  if (!m) throw bad(where, `expected "urlkey timestamp {json}", got ${JSON.stringify(t.length > 80 ? `${t.slice(0, 80)}…` : t)}`, file);
  let json: unknown;
  try {
    json = JSON.parse(m[3]!);
  } catch (err) {
    throw bad(where, `its JSON does not parse (${(err as Error).message})`, file);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw bad(where, 'its JSON is not an object', file);
  if (typeof (json as { url?: unknown }).url !== 'string') throw bad(where, 'no "url" string', file);
  return { urlkey: m[1]!, timestamp: m[2]!, json: json as Record<string, unknown>, ...where };
}

/**
 * The capture lines of a CDXJ stream, in order. Throws CDXJ_BAD_LINE (with `line` and byte
 * `offset`) at the first line that is not CDXJ or is longer than `maxLine` bytes, and
 * CDXJ_BAD_LINE for bytes that are not UTF-8.
 */
export async function* readCdxjLines(input: Readable, file?: string, maxLine = MAX_CDXJ_LINE): AsyncGenerator<CdxjLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 1;
  let offset = 0;
  const take = (last: Buffer): string => {
    const bytes = pending.length === 0 ? last : Buffer.concat([...pending, last]);
    pending = [];
    pendingBytes = 0;
    try {
      return decoder.decode(bytes);
    } catch {
      throw bad({ line, offset }, 'it is not UTF-8 text', file);
    }
  };
  try {
    for await (const chunk of input) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      let start = 0;
      for (let nl = buf.indexOf(0x0a, start); nl >= 0; nl = buf.indexOf(0x0a, start)) {
        const lineBytes = pendingBytes + nl - start;
        if (lineBytes > maxLine) throw bad({ line, offset }, `longer than ${maxLine} bytes`, file);
        const parsed = parseCdxjLine(take(buf.subarray(start, nl)), { line, offset }, file);
        if (parsed) yield parsed;
        offset += lineBytes + 1;
        line++;
        start = nl + 1;
      }
      const rest = buf.subarray(start);
      if (rest.length > 0) {
        if (pendingBytes + rest.length > maxLine) throw bad({ line, offset }, `longer than ${maxLine} bytes`, file);
        pending.push(Buffer.from(rest));
        pendingBytes += rest.length;
      }
    }
    if (pendingBytes > 0) {
      const parsed = parseCdxjLine(take(Buffer.alloc(0)), { line, offset }, file);
      if (parsed) yield parsed;
    }
  } finally {
    input.destroy();
  }
}
