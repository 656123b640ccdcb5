/**
 * A record's bytes as they sit in its WARC, for copying into another WARC untouched: the gzip
 * member (or plain record) at `offset`, `length` bytes long. When the target's compression
 * differs from the source's, the record is inflated or deflated on the way, its content still
 * byte for byte; nothing is ever re-serialised from parsed fields.
 */
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Transform } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { readFileRange } from './file-range.ts';

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** True when the bytes at `offset` of `file` start a gzip member. */
export async function isGzipAt(file: string, offset: number): Promise<boolean> {
  const fh = await fsp.open(file, 'r');
  try {
    const b = Buffer.alloc(2);
    const { bytesRead } = await fh.read(b, 0, 2, offset);
    return bytesRead === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/**
 * The chunks to write for one record. A gzip member is one record plus its `\r\n\r\n`; a plain
 * record's indexed length stops before that separator (pywb's CDX length), so it is added.
 */
export async function* recordChunks(file: string, offset: number, length: number, gzipOut: boolean): AsyncGenerator<Buffer> {
  const gzipIn = await isGzipAt(file, offset);
  const raw = readFileRange(file, offset, length, 1 << 20);
  if (gzipIn === gzipOut) {
    yield* raw;
    if (!gzipIn) yield CRLFCRLF;
    return;
  }
  // readFileRange reuses its buffers and zlib may hold a chunk past the next read: copy them.
  const copies = (async function* () {
    for await (const c of raw) yield Buffer.from(c);
    // A gzip member already ends with the separator; a plain record needs it.
    if (!gzipIn) yield CRLFCRLF;
  })();
  yield* through(copies, gzipIn ? createGunzip() : createGzip({ level: 6 }));
}

/** Chunks of `source` passed through a transform, with errors on either side surfacing here. */
async function* through(source: AsyncIterable<Buffer>, transform: Transform): AsyncGenerator<Buffer> {
  const input = Readable.from(source);
  input.on('error', (err) => transform.destroy(err));
  input.pipe(transform);
  try {
    for await (const c of transform) yield c as Buffer;
  } finally {
    input.destroy();
  }
}
