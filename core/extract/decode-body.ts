/**
 * Content-Encoding decoding with a hard output cap, for extraction and replay.
 *
 * Bomb-safe: a few hundred KB of gzip can expand to gigabytes, so no path here ever holds more
 * than `maxBytes` of output per layer. The stream version (use it for spooled bodies) pulls
 * through zlib with backpressure and stops reading at the cap. The Buffer version uses Node's
 * synchronous zlib with `maxOutputLength`; when that limit trips, or the data is corrupt, it finds
 * the longest input prefix that still decodes within the cap (a bisection, so log2(input) decodes,
 * each bounded by maxBytes) and returns that output: a cut or corrupt stream gives what decoded so
 * far plus `error`. That output may stop a little short of maxBytes (at most what one input byte
 * expands to); it never exceeds it.
 *
 * Codings: gzip / x-gzip, deflate (zlib-wrapped or raw, told apart by the header as browsers
 * do), br, zstd, identity, and stacked lists (`gzip, br` was gzipped first, so br is undone
 * first). A body declared gzip that does not start with the gzip magic is passed through as is,
 * with `error` set: servers that mislabel plain bodies are common and the bytes are still useful.
 */
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import type { Transform } from 'node:stream';

export interface DecodedBody {
  body: Buffer;
  /** True when output was cut at maxBytes. */
  truncated: boolean;
  /** Set when a layer was corrupt, cut short or unsupported; `body` is what decoded so far. */
  error?: string;
}

type Coding = 'gzip' | 'deflate' | 'br' | 'zstd';

interface Codings {
  /** In the order to undo them (last applied first). */
  layers: Coding[];
  unsupported?: string;
}

/** Parse a Content-Encoding value into the decoding order. */
export function parseContentEncoding(value: string | undefined): Codings {
  const applied: Coding[] = [];
  for (const token of (value ?? '').split(',')) {
    const t = token.trim().toLowerCase();
    if (t === '' || t === 'identity' || t === 'none') continue;
    if (t === 'gzip' || t === 'x-gzip') applied.push('gzip');
    else if (t === 'deflate') applied.push('deflate');
    else if (t === 'br') applied.push('br');
    else if (t === 'zstd') applied.push('zstd');
    else return { layers: applied.reverse(), unsupported: t };
  }
  return { layers: applied.reverse() };
}

export function decodeBody(raw: Buffer, contentEncoding: string | undefined, maxBytes: number): DecodedBody {
  const cap = Math.max(0, Math.floor(maxBytes));
  const { layers, unsupported } = parseContentEncoding(contentEncoding);
  if (unsupported !== undefined) return { ...capped(raw, cap), error: `unsupported content-encoding: ${unsupported}` };
  let data = raw;
  let truncated = false;
  for (const coding of layers) {
    const decoder = syncDecoder(coding, data);
    if (decoder === null) return { ...capped(data, cap), truncated: truncated || data.length > cap, error: notGzip() };
    const r = decodeLayerSync(data, decoder, cap);
    data = r.body;
    truncated ||= r.truncated;
    if (r.error !== undefined) return { body: data, truncated, error: r.error };
  }
  const last = capped(data, cap);
  return { body: last.body, truncated: truncated || last.truncated };
}

export async function decodeBodyStream(raw: Readable, contentEncoding: string | undefined, maxBytes: number): Promise<DecodedBody> {
  const cap = Math.max(0, Math.floor(maxBytes));
  const { layers, unsupported } = parseContentEncoding(contentEncoding);
  const notes: string[] = [];
  let source: AsyncIterable<Buffer> = raw;
  if (unsupported === undefined) for (const coding of layers) source = decodeLayerStream(source, coding, notes);

  const parts: Buffer[] = [];
  let length = 0;
  let truncated = false;
  let error: string | undefined;
  try {
    for await (const item of source) {
      const chunk = asBuffer(item);
      if (length + chunk.length > cap) {
        parts.push(chunk.subarray(0, cap - length));
        length = cap;
        if (chunk.length > 0) truncated = true;
        break;
      }
      parts.push(chunk);
      length += chunk.length;
    }
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  } finally {
    if (!raw.destroyed) raw.destroy();
  }
  if (unsupported !== undefined) error = `unsupported content-encoding: ${unsupported}`;
  else if (error === undefined && notes.length > 0) error = notes[0];
  return { body: Buffer.concat(parts, length), truncated, ...(error !== undefined ? { error } : {}) };
}

function notGzip(): string {
  return 'content-encoding gzip declared but the body is not gzip; used as is';
}

function capped(data: Buffer, cap: number): DecodedBody {
  return data.length > cap ? { body: data.subarray(0, cap), truncated: true } : { body: data, truncated: false };
}

function hasGzipMagic(data: Uint8Array): boolean {
  return data.length < 2 || (data[0] === 0x1f && data[1] === 0x8b);
}

/** A zlib header (CMF/FLG with method 8 and a valid check) rather than raw deflate data. */
function hasZlibHeader(data: Uint8Array): boolean {
  return data.length >= 2 && (data[0]! & 0x0f) === 8 && ((data[0]! << 8) | data[1]!) % 31 === 0;
}

type SyncDecode = (input: Buffer, opts: { maxOutputLength: number; flush: boolean }) => Buffer;

/** The synchronous decoder for one layer, or null for gzip without the gzip magic. */
function syncDecoder(coding: Coding, data: Buffer): SyncDecode | null {
  const C = zlib.constants;
  switch (coding) {
    case 'gzip':
      if (!hasGzipMagic(data)) return null;
      return (b, o) => zlib.gunzipSync(b, { maxOutputLength: o.maxOutputLength, ...(o.flush ? { finishFlush: C.Z_SYNC_FLUSH } : {}) });
    case 'deflate': {
      const fn = hasZlibHeader(data) ? zlib.inflateSync : zlib.inflateRawSync;
      return (b, o) => fn(b, { maxOutputLength: o.maxOutputLength, ...(o.flush ? { finishFlush: C.Z_SYNC_FLUSH } : {}) });
    }
    case 'br':
      return (b, o) =>
        zlib.brotliDecompressSync(b, { maxOutputLength: o.maxOutputLength, ...(o.flush ? { finishFlush: C.BROTLI_OPERATION_FLUSH } : {}) });
    case 'zstd':
      return (b, o) => zlib.zstdDecompressSync(b, { maxOutputLength: o.maxOutputLength, ...(o.flush ? { finishFlush: C.ZSTD_e_flush } : {}) });
  }
}

function decodeLayerSync(data: Buffer, decode: SyncDecode, cap: number): DecodedBody {
  if (cap === 0) return { body: Buffer.alloc(0), truncated: data.length > 0 };
  try {
    return { body: decode(data, { maxOutputLength: cap, flush: false }), truncated: false };
  } catch (err) {
    const overflow = (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    const body = longestDecodablePrefix(data, decode, cap);
    if (overflow) return { body, truncated: true };
    return { body, truncated: false, error: (err as Error).message || 'corrupt compressed data' };
  }
}

/**
 * Output of the longest prefix of `data` that decodes (flushing, not finishing) within `cap`.
 * "Decodes within the cap" only gets harder as the prefix grows, so bisection finds it.
 */
function longestDecodablePrefix(data: Buffer, decode: SyncDecode, cap: number): Buffer {
  const attempt = (n: number): Buffer | null => {
    try {
      return decode(data.subarray(0, n), { maxOutputLength: cap, flush: true });
    } catch {
      return null;
    }
  };
  const whole = attempt(data.length);
  if (whole !== null) return whole;
  let lo = 0;
  let hi = data.length;
  let best: Buffer = Buffer.alloc(0);
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const out = attempt(mid);
    if (out !== null) {
      lo = mid;
      best = out;
    } else hi = mid;
  }
  return best;
}

/** A streaming zlib decoder for one layer, chosen from the first bytes; null passes data through. */
function streamDecoder(coding: Coding, head: Buffer): Transform | null {
  switch (coding) {
    case 'gzip':
      return hasGzipMagic(head) ? zlib.createGunzip() : null;
    case 'deflate':
      return hasZlibHeader(head) ? zlib.createInflate() : zlib.createInflateRaw();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'zstd':
      return zlib.createZstdDecompress();
  }
}

/** Undo one coding over an async byte source; output flows only as fast as it is consumed. */
async function* decodeLayerStream(source: AsyncIterable<Buffer>, coding: Coding, notes: string[]): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  // Peek at least two bytes to choose the decoder.
  const headParts: Buffer[] = [];
  let headLength = 0;
  let ended = false;
  while (headLength < 2) {
    const next = await it.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = asBuffer(next.value);
    headParts.push(chunk);
    headLength += chunk.length;
  }
  const head = Buffer.concat(headParts);
  async function* rest(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (ended) return;
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      yield asBuffer(next.value);
    }
  }
  if (head.length === 0) return;
  const decoder = streamDecoder(coding, head);
  if (decoder === null) {
    notes.push(notGzip());
    yield* rest();
    return;
  }
  const input = Readable.from(rest(), { objectMode: false });
  pipeline(input, decoder, () => {});
  try {
    for await (const chunk of decoder) yield chunk as Buffer;
  } finally {
    decoder.destroy();
    input.destroy();
    // Release the upstream source without waiting on it (it may be blocked on a stalled socket).
    it.return?.()?.catch(() => {});
  }
}

function asBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), 'latin1');
}
