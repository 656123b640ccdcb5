/**
 * The record ids `trove check` has seen in a file, kept as 64-bit hashes in an open-addressing
 * table of typed arrays: 16 bytes per record at worst instead of ~100 for a Set of strings, so
 * checking a single 20 GB WARC of 4M records needs ~64 MB, not ~400 MB. A false "seen" needs two
 * ids whose MD5s share 64 bits; references are checked for a missing target, so such a collision
 * could only hide one warning. Written by hand: no library keeps a compact set of hashes.
 */
import { createHash } from 'node:crypto';

export class RecordIdSet {
  #hi = new Uint32Array(1 << 12);
  #lo = new Uint32Array(1 << 12);
  #size = 0;

  add(id: string): void {
    const [hi, lo] = hashOf(id);
    if (this.#insert(hi, lo) && ++this.#size * 2 > this.#hi.length) this.#grow();
  }

  has(id: string): boolean {
    const [hi, lo] = hashOf(id);
    const mask = this.#hi.length - 1;
    for (let i = lo & mask; ; i = (i + 1) & mask) {
      if (this.#hi[i] === 0 && this.#lo[i] === 0) return false;
      if (this.#hi[i] === hi && this.#lo[i] === lo) return true;
    }
  }

  /** True when the hash was not there yet. */
  #insert(hi: number, lo: number): boolean {
    const mask = this.#hi.length - 1;
    for (let i = lo & mask; ; i = (i + 1) & mask) {
      if (this.#hi[i] === 0 && this.#lo[i] === 0) {
        this.#hi[i] = hi;
        this.#lo[i] = lo;
        return true;
      }
      if (this.#hi[i] === hi && this.#lo[i] === lo) return false;
    }
  }

  #grow(): void {
    const hi = this.#hi;
    const lo = this.#lo;
    this.#hi = new Uint32Array(hi.length * 2);
    this.#lo = new Uint32Array(lo.length * 2);
    for (let i = 0; i < hi.length; i++) if (hi[i] !== 0 || lo[i] !== 0) this.#insert(hi[i]!, lo[i]!);
  }
}

/** Two 32-bit words of the id's MD5; (0, 0), the empty slot, is moved to (0, 1). */
function hashOf(id: string): [number, number] {
  const d = createHash('md5').update(id).digest();
  const hi = d.readUInt32LE(0);
  const lo = d.readUInt32LE(4);
  return hi === 0 && lo === 0 ? [0, 1] : [hi, lo];
}
