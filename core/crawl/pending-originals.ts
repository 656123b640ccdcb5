/**
 * Payload digests of responses being written right now, so that a duplicate fetched meanwhile
 * (another queue, or the same queue's next fetch, which starts before this one is indexed) is
 * still written as a revisit of it. Without this, two copies fetched close together were both
 * stored in full: the capture index learns of an original only once it is committed.
 *
 * A duplicate waits for the original's outcome: written (a revisit pointing at it) or failed
 * (a full disk: then the duplicate looks again, and may become the original itself). So a
 * revisit never points at a record that did not make it into the WARC.
 */
import type { CaptureIndex } from '../archive/capture-index.ts';

export interface OriginalCapture {
  recordId: string;
  targetUri: string;
  /** WARC-Date of the original, as in the capture index. */
  date: string;
}

export type OriginalClaim =
  | { kind: 'duplicate'; original: OriginalCapture }
  /** This response is the original: call `settle` once it is committed (or with null when it is not). */
  | { kind: 'original'; settle(written: OriginalCapture | null): void };

export class PendingOriginals {
  readonly #pending = new Map<string, Promise<OriginalCapture | null>>();

  /** The earliest whole capture with this payload digest (indexed, or being written; never a truncated one), else a claim to be it. */
  async claim(captures: CaptureIndex, digest: string): Promise<OriginalClaim> {
    for (;;) {
      const row = captures.originalByDigest(digest);
      if (row?.recordId && row.targetUri && row.date) return { kind: 'duplicate', original: { recordId: row.recordId, targetUri: row.targetUri, date: row.date } };
      const pending = this.#pending.get(digest);
      if (!pending) break;
      const written = await pending;
      if (written) return { kind: 'duplicate', original: written };
      // That original failed to be written: look again.
    }
    let resolve!: (v: OriginalCapture | null) => void;
    const promise = new Promise<OriginalCapture | null>((r) => (resolve = r));
    this.#pending.set(digest, promise);
    let settled = false;
    return {
      kind: 'original',
      settle: (written) => {
        if (settled) return;
        settled = true;
        if (this.#pending.get(digest) === promise) this.#pending.delete(digest);
        resolve(written);
      },
    };
  }

  get size(): number {
    return this.#pending.size;
  }
}
