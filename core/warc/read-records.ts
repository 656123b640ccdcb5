/**
 * Reading WARC (0.17 to 1.1) and ARC v1 files record by record, in sequence or at an offset.
 *
 * Why by hand and not warcio.js: its indexer reads whole records into memory, it mis-parses
 * folded headers, it gives every record of a whole-file-gzip WARC the same offset and it cannot
 * read ARC. Here memory stays flat whatever the file or record size (blocks are streamed or
 * skipped, never buffered whole), offsets are exact, and every failure is a typed error.
 *
 * How problems surface: the iterator yields every good record; at a point where it cannot go
 * on (file cut short, corrupt gzip, a header block that never ends, trailing garbage) it throws a
 * WarcReadError with `details.offset`. Defects it can step over (missing separator, LF-only
 * lines, junk between records, a bad Content-Length, a record sharing a gzip member) go to
 * `onWarning` and reading goes on. It never hangs and never returns a short record in silence.
 *
 * Lenient where real producers need it: LF-only and CR CR LF line ends, folded headers, no
 * CRLF CRLF after a record, wget's `<uri>`, WARC/0.17 and 0.18, names and the version line in
 * any case, gzip data whatever the file is called, whole-file gzip (readable in sequence only).
 */
import { arcToWarcFields, arcVersionOf, parseArcHeaderLine } from './arc-reader.ts';
import type { ArcHeaderLine } from './arc-reader.ts';
import { ReadCursor } from './read-cursor.ts';
import { WarcReadError } from './read-errors.ts';
import type { WarcWarningCode, WarningHandler } from './read-errors.ts';
import { fieldValue } from '../formats/http-fields.ts';
import { KNOWN_WARC_VERSIONS, lineEndingOf, parseContentLength, parseFieldLines, parseVersionLine, trimLineEnd } from './read-headers.ts';
import { DetachedRecord, StreamedRecord } from './read-record.ts';
import type { RecordHeadInit, WarcRecord } from './read-record.ts';
import type { FileRange } from './file-range.ts';
import { openSource } from './read-source.ts';
import type { MemberSpan } from './read-source.ts';

export type { WarcRecord, WarcRecordHead } from './read-record.ts';

export interface ReadOptions {
  /** Non-fatal problems; reading goes on after each. */
  onWarning?: WarningHandler;
  /** Read only these bytes of the file, as a file of their own (a WARC stored in a ZIP); offsets are within them. */
  range?: FileRange;
}

/** Longest line looked at when searching for a record start. */
const MAX_LINE = 64 << 10;
/** A WARC header block longer than this is garbage, not headers. */
const MAX_HEADER = 1 << 20;
const CR = 0x0d;
const LF = 0x0a;
const CRLFCRLF = 0x0d0a0d0a;
/** Warnings given once per file: they describe the producer, not one record. */
const ONCE = new Set<WarcWarningCode>(['WARC_NOT_RANDOM_ACCESS', 'WARC_BAD_SEPARATOR', 'WARC_BAD_LINE_ENDING']);

/**
 * The records of a WARC or ARC file, in order. The file is opened when iteration starts and
 * closed when it ends (also on `break` or an error). Compression is sniffed from the bytes.
 */
export function openArchiveFile(path: string, opts: ReadOptions = {}): AsyncIterable<WarcRecord> {
  return {
    [Symbol.asyncIterator]: () => readFile(path, opts),
  };
}

async function* readFile(path: string, opts: ReadOptions): AsyncGenerator<WarcRecord> {
  const { file, source } = await openSource(path, 0, Infinity, true, opts.range);
  try {
    const cursor = new ReadCursor(source, 0);
    const scanner = new RecordScanner(cursor, opts.onWarning, false);
    for (;;) {
      const init = await scanner.readHead();
      if (!init) return;
      const record = new StreamedRecord(init, cursor);
      yield record;
      await record.finish();
      await scanner.endRecord(record);
    }
  } finally {
    await source.close();
    await file.close();
  }
}

/**
 * The record starting exactly at `offset` (a gzip member start, or a record start in an
 * uncompressed file), for replay. With `length`, nothing past `offset + length` is read. The
 * returned record holds no open file; see DetachedRecord.
 */
export async function readRecordAt(path: string, offset: number, length?: number): Promise<WarcRecord> {
  if (length !== undefined && !(length > 0)) length = undefined; // 0: not known
  const end = length === undefined ? Infinity : offset + length;
  const opened = await openSource(path, offset, end);
  try {
    const cursor = new ReadCursor(opened.source, offset);
    const scanner = new RecordScanner(cursor, undefined, true);
    const init = await scanner.readHead();
    if (!init) throw new WarcReadError('WARC_BAD_VERSION', `no record at offset ${offset} of ${path}`, { offset, path });
    if (length !== undefined) init.length = length;
    if (cursor.buffered >= init.contentLength) {
      // The whole block is already in memory (always for small gzip members): keep a copy.
      const bytes = Buffer.from(await cursor.readBytes(init.contentLength));
      return new DetachedRecord(init, async () => ({ cursor: memoryCursor(bytes), close: async () => {} }));
    }
    return new DetachedRecord(init, async () => {
      const o = await openSource(path, offset, end);
      const c = new ReadCursor(o.source, offset);
      const close = async (): Promise<void> => {
        await o.source.close();
        await o.file.close();
      };
      try {
        if ((await c.skip(init.headerLength)) < init.headerLength) {
          throw new WarcReadError('WARC_TRUNCATED', `file ends inside the record at offset ${offset}`, { offset });
        }
      } catch (err) {
        await close();
        throw err;
      }
      return { cursor: c, close };
    });
  } finally {
    await opened.source.close();
    await opened.file.close();
  }
}

function memoryCursor(bytes: Buffer): ReadCursor {
  let given = false;
  return new ReadCursor({
    compressed: false,
    async next() {
      if (given) return null;
      given = true;
      return bytes;
    },
    async close() {},
  });
}

interface RecordStart {
  /** Decompressed position of the record's first byte. */
  pos: number;
  /** Its first line (version line or ARC header line), with the line end. */
  line: Buffer;
  member: MemberSpan | null;
  arc: ArcHeaderLine | null;
}

/** One pass over one file. */
class RecordScanner {
  readonly #cursor: ReadCursor;
  readonly #onWarning: WarningHandler | undefined;
  /** readRecordAt: the record must start at the first byte. */
  readonly #strict: boolean;
  readonly #warned = new Set<WarcWarningCode>();
  #format: 'warc' | 'arc' | null = null;
  #arcVersion = 'ARC/1.0';
  #start: RecordStart | null = null;
  /** A record has been found (junk before the first one means a wrong format). */
  #found = false;

  constructor(cursor: ReadCursor, onWarning: WarningHandler | undefined, strict: boolean) {
    this.#cursor = cursor;
    this.#onWarning = onWarning;
    this.#strict = strict;
  }

  /** Find and parse the next record head, leaving the cursor at its block. Null at the end. */
  async readHead(): Promise<RecordHeadInit | null> {
    this.#format ??= await this.#sniffFormat();
    if (!this.#format) return null;
    const start = await this.#nextStart(this.#format);
    if (!start) return null;
    this.#start = start;
    return this.#format === 'warc' ? this.#warcHead(start) : this.#arcHead(start);
  }

  async #sniffFormat(): Promise<'warc' | 'arc' | null> {
    const head = (await this.#cursor.peek(256)).toString('latin1');
    if (head === '') return null;
    const text = head.replace(/^[\r\n]+/, '');
    if (/^warc\//i.test(text)) return 'warc';
    if (/^filedesc:/i.test(text)) return 'arc';
    // An ARC record other than filedesc (readRecordAt in an ARC file): judge its whole first line.
    const line = (await this.#cursor.peek(MAX_LINE)).toString('latin1').replace(/^[\r\n]+/, '').split('\n', 1)[0]!;
    if (parseArcHeaderLine(trimLineEnd(line))) return 'arc';
    const offset = await this.#cursor.fileOffset(this.#cursor.position);
    throw new WarcReadError('WARC_BAD_VERSION', `not a WARC or ARC file: it starts with ${JSON.stringify(text.slice(0, 24))}`, { offset });
  }

  /** Skip to the next record start, warning about anything skipped. Null at a clean end. */
  async #nextStart(format: 'warc' | 'arc'): Promise<RecordStart | null> {
    const c = this.#cursor;
    let junkPos = -1;
    let junk = 0;
    for (;;) {
      const pos = c.position;
      if (c.buffered === 0 && (await c.peekByte()) < 0) {
        if (junk > 0) {
          throw new WarcReadError('WARC_TRAILING_DATA', `${junk} bytes after the last record are not a record`, { offset: await c.fileOffset(junkPos) });
        }
        return null;
      }
      // Awaiting only what is not at hand keeps the per-record cost low (this loop runs per record).
      const m = c.memberAt(pos);
      const member = m instanceof Promise ? await m : m;
      const line = c.lineInMemory(MAX_LINE) ?? (await c.readLine(MAX_LINE))!;
      const text = line.toString('latin1');
      const arc = format === 'arc' ? parseArcHeaderLine(trimLineEnd(text)) : null;
      if (format === 'warc' ? parseVersionLine(text) !== null : arc !== null) {
        if (junk > 0) {
          const at = member?.offset ?? pos;
          this.#warn('WARC_SKIPPED_DATA', `skipped ${junk} bytes that are not a record before the record at offset ${at} (Content-Length too small?)`, await c.fileOffset(junkPos));
        }
        this.#found = true;
        return { pos, line, member, arc };
      }
      const at = member?.offset ?? pos;
      // Before the first record only blank lines are passed over: anything else is not this format.
      if (this.#strict || (!this.#found && trimLineEnd(text) !== '')) {
        const what = format === 'warc' ? `a WARC version line (found ${JSON.stringify(trimLineEnd(text).slice(0, 40))})` : 'an ARC record';
        throw new WarcReadError('WARC_BAD_VERSION', `expected ${what} at offset ${at}`, { offset: at });
      }
      if (junkPos < 0) junkPos = pos;
      junk += line.length;
    }
  }

  async #warcHead(start: RecordStart): Promise<RecordHeadInit> {
    const c = this.#cursor;
    const offset = this.#offsetOf(start);
    const first = start.line.toString('latin1');
    const version = parseVersionLine(first)!;
    if (!KNOWN_WARC_VERSIONS.has(version.slice(5))) this.#warn('WARC_UNKNOWN_VERSION', `unknown version ${version}`, offset);
    const inMemory = c.headerBlockInMemory(MAX_HEADER);
    const block = inMemory ? { bytes: inMemory, complete: true } : await c.readHeaderBlock(MAX_HEADER);
    if (!block.complete) {
      if (block.bytes.length >= MAX_HEADER) {
        throw new WarcReadError('WARC_BAD_HEADER', `no end to the header block of the record at offset ${offset} within ${MAX_HEADER} bytes`, { offset });
      }
      throw new WarcReadError('WARC_TRUNCATED', `file ends inside the header block of the record at offset ${offset}`, { offset });
    }
    const fields = parseFieldLines(block.bytes.toString('utf8'));
    const firstEnding = lineEndingOf(first);
    if (fields.lineEnding !== 'crlf' || firstEnding !== 'crlf') {
      const kind = firstEnding !== 'crlf' && firstEnding !== fields.lineEnding ? 'mixed' : fields.lineEnding;
      this.#warn('WARC_BAD_LINE_ENDING', `header lines end in ${describeEnding(kind)}, not CRLF (first seen in the record at offset ${offset})`, offset);
    }
    for (const bad of fields.badLines) {
      this.#warn('WARC_BAD_HEADER_LINE', `dropped a header line that is not a field: ${JSON.stringify(bad.slice(0, 60))}`, offset);
    }
    let contentLength = parseContentLength(fieldValue(fields.headers, 'Content-Length'));
    if (contentLength === null) {
      const raw = fieldValue(fields.headers, 'Content-Length');
      this.#warn('WARC_BAD_CONTENT_LENGTH', raw === null ? 'no Content-Length: block taken as empty' : `Content-Length ${JSON.stringify(raw)} is not a number: block taken as empty`, offset);
      contentLength = 0;
    }
    const headerLength = start.line.length + block.bytes.length;
    return {
      offset,
      length: this.#provisionalLength(start, offset, headerLength + contentLength),
      version,
      headers: fields.headers,
      contentLength,
      format: 'warc',
      compressed: c.compressed,
      headerLength,
    };
  }

  async #arcHead(start: RecordStart): Promise<RecordHeadInit> {
    const h = start.arc!;
    const offset = this.#offsetOf(start);
    let contentLength = h.length;
    if (contentLength === null) {
      this.#warn('ARC_BAD_LENGTH', `ARC length ${JSON.stringify(h.rawLength)} is not a number: record taken as empty`, offset);
      contentLength = 0;
    }
    if (h.url.toLowerCase().startsWith('filedesc:')) {
      this.#arcVersion = arcVersionOf(await this.#cursor.peek(Math.min(contentLength, 32))) ?? this.#arcVersion;
    }
    const headerLength = start.line.length;
    return {
      offset,
      length: this.#provisionalLength(start, offset, headerLength + contentLength),
      version: this.#arcVersion,
      headers: arcToWarcFields(h, contentLength),
      contentLength,
      format: 'arc',
      compressed: this.#cursor.compressed,
      headerLength,
    };
  }

  /** After the block: the separator, then the exact on-disk length and gzip layout. */
  async endRecord(record: StreamedRecord): Promise<void> {
    const c = this.#cursor;
    const start = this.#start!;
    let sep = '';
    const v = c.view;
    if (v.length >= 5 && v.readUInt32BE(0) === CRLFCRLF && v[4] !== CR && v[4] !== LF) {
      sep = '\r\n\r\n'; // the usual case, in memory, in one step
      c.advance(4);
    } else {
      const ahead = await c.peek(4);
      if (ahead.length === 4 && ahead.readUInt32BE(0) === CRLFCRLF) {
        sep = '\r\n\r\n';
        await c.skip(4);
      }
      for (;;) {
        const b = await c.peekByte();
        if (b !== CR && b !== LF) break;
        if (sep.length < 8) sep += b === CR ? '\r' : '\n';
        await c.skip(1);
      }
    }
    if (record.format === 'warc' && sep !== '\r\n\r\n') {
      const what = sep === '' ? 'is not followed by CRLF CRLF' : `is followed by ${describeBytes(sep)} instead of CRLF CRLF`;
      this.#warn('WARC_BAD_SEPARATOR', `the record at offset ${record.offset} ${what}`, record.offset);
    }
    if (!c.compressed) return;
    const end = c.position;
    const em = c.memberEndingAt(end);
    const endMember = em instanceof Promise ? await em : em;
    if (endMember?.endOffset != null) record.length = endMember.endOffset - record.offset;
    const alone = start.member?.startPos === start.pos && endMember?.startPos === start.pos && endMember.endPos === end;
    if (!alone) {
      this.#warn('WARC_NOT_RANDOM_ACCESS', `the record at offset ${record.offset} does not sit alone in its own gzip member: the file can be read in sequence but not at record offsets`, record.offset);
    }
  }

  #offsetOf(start: RecordStart): number {
    return start.member?.offset ?? start.pos;
  }

  /** On-disk length as far as known now: exact for plain files and for members already inflated. */
  #provisionalLength(start: RecordStart, offset: number, plainLength: number): number {
    if (!this.#cursor.compressed) return plainLength;
    return start.member?.endOffset != null ? start.member.endOffset - offset : 0;
  }

  #warn(code: WarcWarningCode, message: string, offset: number): void {
    if (ONCE.has(code)) {
      if (this.#warned.has(code)) return;
      this.#warned.add(code);
    }
    this.#onWarning?.({ code, message, offset });
  }
}

function describeEnding(kind: string): string {
  return kind === 'lf' ? 'LF only' : kind === 'crcrlf' ? 'CR CR LF' : 'a mix of line ends';
}

function describeBytes(s: string): string {
  return [...s].map((ch) => (ch === '\r' ? 'CR' : 'LF')).join(' ');
}
