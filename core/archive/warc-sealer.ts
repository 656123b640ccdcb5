/**
 * Records the fixity of each WARC the crawl closes (file-fixity.ts), in the background: the
 * closed file is read back from the page cache and hashed a megabyte at a time between the
 * crawl's other work. `settle()` waits for the hashing still running (before the database
 * closes); a crawl killed before then leaves the file unsealed, and the next run seals it.
 * It lives with the archive because fixity is an archive fact: crawls and recordings both seal.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { Archive } from './archive-dir.ts';
import { databaseOf } from './archive-dir.ts';
import type { CaptureIndex } from './capture-index.ts';
import { recordedFixity, sealFile } from './file-fixity.ts';

export class WarcSealer {
  readonly #db: Database.Database;
  /** Seals run one after another (a resumed crawl may have many files to seal). */
  #chain: Promise<unknown> = Promise.resolve();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Hash a closed WARC and record it for `fileId`, after the seals queued before it. */
  seal(fileId: number, finalPath: string): void {
    const size = fs.statSync(finalPath, { throwIfNoEntry: false })?.size;
    if (size === undefined) return;
    this.#chain = this.#chain.then(() => sealFile(this.#db, fileId, finalPath, 0, size));
  }

  /** Seal the crawl's closed WARCs that have no fixity yet (a crawl killed before sealing them). */
  sealUnsealed(captures: CaptureIndex, crawlDir: string): void {
    for (const f of captures.files()) {
      if (f.source !== 'crawl' || recordedFixity(this.#db, f.id)) continue;
      this.seal(f.id, path.join(crawlDir, f.path));
    }
  }

  /** Wait for every seal queued so far. */
  async settle(): Promise<void> {
    let last: Promise<unknown>;
    do {
      last = this.#chain;
      await last;
    } while (last !== this.#chain);
  }
}

/** A sealer for an open archive's files (a recording's WARCs), without handing out its database. */
export function archiveSealer(archive: Archive): WarcSealer {
  return new WarcSealer(databaseOf(archive));
}
