/**
 * Reading a byte range of a file in large chunks with read-ahead, for copying WARC bytes into an
 * export (a whole WARC, a WARC inside a .wacz, one record).
 */
import fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { TroveError } from '../errors.ts';

/**
 * The bytes of `file` from `start`, `length` of them, in chunks of up to `chunk` bytes. The next
 * chunk is read while the caller handles the current one, so reading, hashing and writing
 * overlap. Three buffers take turns: a chunk stays valid until the caller asks for the second
 * chunk after it (long enough for ZipWriter's write-behind).
 */
export async function* readFileRange(file: string, start: number, length: number, chunk = 1 << 20): AsyncGenerator<Buffer> {
  const fh = await fsp.open(file, 'r');
  try {
    const bufs = [Buffer.allocUnsafe(chunk), Buffer.allocUnsafe(chunk), Buffer.allocUnsafe(chunk)];
    let pos = start;
    const end = start + length;
    let turn = 0;
    const readNext = (): Promise<Buffer> | null => {
      if (pos >= end) return null;
      const want = Math.min(chunk, end - pos);
      const at = pos;
      pos += want;
      const b = bufs[turn]!;
      turn = (turn + 1) % bufs.length;
      return readFully(fh, b, want, at, file);
    };
    let next = readNext();
    while (next) {
      const got = await next;
      next = readNext();
      yield got;
    }
  } finally {
    await fh.close();
  }
}

async function readFully(fh: FileHandle, b: Buffer, want: number, at: number, file: string): Promise<Buffer> {
  let got = 0;
  while (got < want) {
    const { bytesRead } = await fh.read(b, got, want - got, at + got);
    if (bytesRead === 0) {
      throw new TroveError('EXPORT_SOURCE_SHORT', `${file} ends at ${at + got}, before the ${want} bytes expected at ${at}`, { path: file, offset: at + got });
    }
    got += bytesRead;
  }
  return b.subarray(0, want);
}
