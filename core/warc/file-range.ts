/**
 * A byte range of a file read as if it were a file of its own: a WARC stored uncompressed inside
 * a ZIP (a WACZ) is a plain range of the package, so it can be checked and indexed where it lies,
 * with no copy, and every offset the reader gives is within the range, as in a copied-out file.
 * The gzip and plain sources only ever read at a position, so a window over the file is all
 * they need.
 */
import type { FileHandle } from 'node:fs/promises';

/** Bytes [start, end) of a file. */
export interface FileRange {
  start: number;
  end: number;
}

/** What the byte sources need of an open file: positioned reads. */
export interface ReadAt {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/** Reads of `file` shifted by `range.start` and stopped at `range.end`. */
export function readWithin(file: FileHandle, range: FileRange): ReadAt {
  const length = range.end - range.start;
  return {
    read: (buffer, offset, len, position) => {
      const n = Math.min(len, length - position);
      if (n <= 0) return Promise.resolve({ bytesRead: 0 });
      return file.read(buffer, offset, n, range.start + position);
    },
  };
}
