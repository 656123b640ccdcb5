/**
 * Records the fixity of each WARC the crawl closes (file-fixity.ts), in the background: the
 * closed file is read back from the page cache and hashed a megabyte at a time between the
 * crawl's other work. `settle()` waits for the hashing still running (before the database
 * closes); a crawl killed before then leaves the file unsealed, and the next run seals it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { CaptureIndex } from '../archive/capture-index.ts';
import { recordedFixity, sealFile } from '../archive/file-fixity.ts';

export class WarcSealer {
  readonly #db: Database.Database;
  readonly #pending = new Set<Promise<unknown>>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Hash a closed WARC and record it for `fileId`. */
  seal(fileId: number, finalPath: string): void {
    const size = fs.statSync(finalPath, { throwIfNoEntry: false })?.size;
    if (size === undefined) return;
    const run = sealFile(this.#db, fileId, finalPath, 0, size).finally(() => this.#pending.delete(run));
    this.#pending.add(run);
  }

  /** Seal the crawl's closed WARCs that have no fixity yet (a crawl killed before sealing them). */
  sealUnsealed(captures: CaptureIndex, crawlDir: string): void {
    for (const f of captures.files()) {
      if (f.source !== 'crawl' || recordedFixity(this.#db, f.id)) continue;
      this.seal(f.id, path.join(crawlDir, f.path));
    }
  }

  /** Wait for every seal started so far. */
  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }
}
