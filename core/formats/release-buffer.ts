/**
 * Gives a body-sized buffer's memory back at once, when its holder knows it is the last one, instead
 * of leaving it to the next garbage collection. A crawl makes several body-sized ArrayBuffers per
 * page (socket reads, the record's join, its gzip member, the extraction input); most of them live
 * long enough to be promoted, and a promoted ArrayBuffer's memory is freed only by a full
 * collection, so they piled up between collections (issue 20: 12–19 MiB of ArrayBuffers at the
 * Python docs crawl's peak RSS). `ArrayBuffer.prototype.transfer(0)` (ES2024) detaches the buffer,
 * which drops V8's hold on its backing store and frees it there and then; every view of it reads
 * as empty afterwards, so only a holder that owns all of those views may call this.
 */

/** Below this a buffer is left to the collector: a release costs more than the memory is worth. */
const RELEASE_MIN_BYTES = 4096;

/**
 * Frees the memory of `buf`'s ArrayBuffer (or of `buf`, an ArrayBuffer) now. `whole`: only when `buf` spans all of it (a join or a
 * copy made by the caller; a view into Node's shared pool or into a larger buffer is left alone).
 * Without `whole` the caller owns the whole ArrayBuffer, whatever part of it `buf` views (a socket
 * read kept as a body piece). A buffer already released, not detachable or small is left as it is.
 */
export function releaseBuffer(buf: Uint8Array | ArrayBuffer, whole = true): void {
  const ab = buf instanceof ArrayBuffer ? buf : buf.buffer;
  if (!(ab instanceof ArrayBuffer) || ab.detached || ab.byteLength < RELEASE_MIN_BYTES) return;
  if (whole && ab !== buf && ((buf as Uint8Array).byteOffset !== 0 || (buf as Uint8Array).byteLength !== ab.byteLength)) return;
  try {
    ab.transfer(0);
  } catch {
    // Not detachable (Node's Buffer pool, WebAssembly memory): the collector frees it.
  }
}
