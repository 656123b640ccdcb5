/**
 * An in-memory set, of fixed size, of fingerprints the SQLite frontier has durably stored, in front
 * of its SQL (issue 40). A page's outlinks are mostly URIs the crawl has seen (navigation, tables
 * of contents: hundreds per page on a documentation site), and each one asked of SQLite costs about
 * a microsecond (`knownAmong`) even when batched; a fingerprint found here skips that question.
 *
 * Exact where it answers: a fingerprint is put here only once its uris row is committed (uris rows
 * are never deleted), so "known" is always true; "not here" says nothing, and SQLite is asked as
 * before. Rows written inside a transaction may still be rolled back (a savepoint, a lost group),
 * so the fingerprints the frontier meets are first noted as pending, and `settle` — called right
 * after a COMMIT, when no transaction is open and what SQLite holds is durable — asks SQLite once
 * which of them it holds and keeps those. Pending fingerprints beyond PENDING_MAX are not noted
 * (they are asked of SQLite when met again, and noted then).
 *
 * A direct-mapped table (one slot per low bits of the fingerprint, a newer one replacing an older
 * one): bounded memory, 8 bytes a slot, no allocation per entry, no garbage.
 */
const SLOTS_LOG2 = 16;
const SLOTS = 1 << SLOTS_LOG2;
const PENDING_MAX = 1 << 16;

export class KnownFingerprints {
  /** Signed 64-bit fingerprints (as SQLite stores them); 0 marks an empty slot. */
  readonly #table = new BigInt64Array(SLOTS);
  readonly #pending = new BigInt64Array(PENDING_MAX);
  #pendingCount = 0;

  /** True only if a committed uris row has this (signed 64-bit) fingerprint. */
  has(fp: bigint): boolean {
    return fp !== 0n && this.#table[Number(BigInt.asUintN(SLOTS_LOG2, fp))] === fp;
  }

  /** A fingerprint met in a transaction that may not commit: kept once `settle` finds it stored. */
  note(fp: bigint): void {
    if (fp === 0n || this.#pendingCount === PENDING_MAX) return;
    this.#pending[this.#pendingCount++] = fp;
  }

  /**
   * Call only when no transaction is open: `stored` answers, from SQLite, which of the pending
   * fingerprints a uris row has (by position); those are kept, and the pending list is emptied.
   */
  settle(stored: (fps: BigInt64Array) => Iterable<number>): void {
    if (this.#pendingCount === 0) return;
    const fps = this.#pending.subarray(0, this.#pendingCount);
    for (const i of stored(fps)) {
      const fp = fps[i]!;
      this.#table[Number(BigInt.asUintN(SLOTS_LOG2, fp))] = fp;
    }
    this.#pendingCount = 0;
  }
}
