/**
 * Checks one gzip member of a `.warc.gz.open` file in place: a valid gzip header, a deflate
 * stream that ends, a trailer whose CRC-32 and size match, and inflated bytes that are whole
 * WARC records. Streams: the member is read in 1 MiB slices and inflated on the fly.
 *
 * Written by hand because a recovery must know exactly where a member ends, and Node's gunzip
 * (like warcio's reader) silently runs on into the next member. Raw inflate stops at the end
 * of the deflate stream and `bytesWritten` tells how much input it consumed; the RFC 1952
 * header and trailer around it are parsed here.
 */
import { once } from 'node:events';
import type { FileHandle } from 'node:fs/promises';
import { crc32, createInflateRaw } from 'node:zlib';
import { RecordScanner } from './recover-record-scanner.ts';

const SLICE = 1024 * 1024;
const FTEXT_FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;

export type MemberCheck = { ok: true; end: number; records: number } | { ok: false; problem: string };

/** Reads up to `len` bytes at `pos` (fewer at the end of the file). */
export async function readAt(fh: FileHandle, pos: number, len: number): Promise<Buffer> {
  const buf = Buffer.alloc(len);
  let got = 0;
  while (got < len) {
    const { bytesRead } = await fh.read(buf, got, len - got, pos + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** Length of the RFC 1952 member header at the start of `buf`, or a reason it is not one. */
function gzipHeaderLength(buf: Buffer): number | string {
  if (buf.length < 10) return 'gzip header cut short';
  if (buf[0] !== 0x1f || buf[1] !== 0x8b) return 'not a gzip member';
  if (buf[2] !== 8) return 'gzip member not deflate-compressed';
  const flags = buf[3]!;
  if (flags & 0xe0) return 'gzip header has reserved flags set';
  let at = 10;
  if (flags & FEXTRA) {
    if (buf.length < at + 2) return 'gzip header cut short';
    at += 2 + buf.readUInt16LE(at);
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (flags & flag) {
      const zero = buf.indexOf(0, at);
      if (zero < 0) return 'gzip header cut short (or name/comment too long)';
      at = zero + 1;
    }
  }
  if (flags & FTEXT_FHCRC) at += 2;
  return at <= buf.length ? at : 'gzip header cut short';
}

/** Checks the member starting at `pos` of a file of `size` bytes. */
export async function checkGzipMember(fh: FileHandle, pos: number, size: number): Promise<MemberCheck> {
  const head = await readAt(fh, pos, Math.min(64 * 1024, size - pos));
  const headerLen = gzipHeaderLength(head);
  if (typeof headerLen === 'string') return { ok: false, problem: headerLen };

  const scanner = new RecordScanner();
  const inflate = createInflateRaw();
  let crc = 0;
  let inflated = 0;
  let ended = false;
  let failure: Error | null = null;
  inflate.on('data', (d: Buffer) => {
    crc = crc32(d, crc);
    inflated += d.length;
    scanner.push(d);
  });
  const done = once(inflate, 'end').then(
    () => {
      ended = true;
    },
    (err: Error) => {
      failure = err;
    },
  );

  let fed = 0;
  let at = pos + headerLen;
  try {
    while (at < size && !ended && !failure && !scanner.bad) {
      const slice = await readAt(fh, at, Math.min(SLICE, size - at));
      // zlib never calls a write's callback once the data turns out corrupt (Z_DATA_ERROR):
      // it only emits 'error', which settles `done`. Race the two, or a bad member hangs here.
      const written = new Promise<void>((resolve) =>
        inflate.write(slice, (err) => {
          if (err) failure ??= err;
          resolve();
        }),
      );
      await Promise.race([written, done]);
      fed += slice.length;
      at += slice.length;
      // The engine stops consuming at the end of the deflate stream; let 'end' arrive.
      if (inflate.bytesWritten < fed) await Promise.race([done, new Promise((r) => setImmediate(r))]);
    }
    if (!ended && !failure && !scanner.bad) {
      inflate.end();
      await done;
    }
  } finally {
    inflate.destroy();
  }
  if (scanner.bad) return { ok: false, problem: scanner.problem ?? 'not a WARC record' };
  if (failure || !ended) {
    return { ok: false, problem: `gzip member torn (${(failure as Error | null)?.message ?? 'no end of deflate stream'})` };
  }

  const trailerAt = pos + headerLen + inflate.bytesWritten;
  const trailer = await readAt(fh, trailerAt, 8);
  if (trailer.length < 8) return { ok: false, problem: 'gzip trailer cut short' };
  if (trailer.readUInt32LE(0) !== crc >>> 0) return { ok: false, problem: 'gzip CRC-32 mismatch' };
  if (trailer.readUInt32LE(4) !== inflated % 2 ** 32) return { ok: false, problem: 'gzip size mismatch' };
  if (!scanner.atBoundary || scanner.records === 0) {
    return { ok: false, problem: 'gzip member does not hold whole WARC records' };
  }
  return { ok: true, end: trailerAt + 8, records: scanner.records };
}
