/**
 * Full-text rows are written in batches: FTS5 pays a segment merge per transaction, and one
 * transaction for 32 pages costs about half of 32 single ones (the Python docs' pages). The
 * capture rows themselves still commit with the
 * frontier outcome; only the derived search text waits.
 *
 * In a crawl the buffer rides the group commit (core/storage/group-commit.ts): it is written into
 * the open group just before each COMMIT, so a batch never outlives the group whose record ids it
 * names. Should that group be lost (rolled back on a full disk), its record ids are gone with it
 * and the batch is dropped; reconcile-index.ts indexes those records again, search text included.
 * Only then: FTS5 joins a transaction when it first writes in it, and from then on every SAVEPOINT
 * in that transaction makes it flush, so a batch written in the middle of a group made the rest of
 * the group's savepoints cost more each (a crawl opened ~4 per URI before its units ran without
 * them, storage/group-commit.ts). Without an open group
 * the buffer holds at most 32 pages and waits at most a second, as before. A crash loses at most
 * the last batch of search text, never a capture.
 */
import type { CaptureIndex, PageText } from '../archive/capture-index.ts';
import type { GroupCommit } from '../storage/group-commit.ts';

const MAX_PAGES = 32;
const MAX_CHARS = 4 * 1024 * 1024;
const MAX_WAIT_MS = 1000;

export class PageTextBuffer {
  private captures: CaptureIndex;
  private group: GroupCommit | null;
  private pending: PageText[] = [];
  private chars = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(captures: CaptureIndex, group: GroupCommit | null = null) {
    this.captures = captures;
    this.group = group;
    group?.listen({ beforeCommit: () => this.flush(), lost: () => this.discard() });
  }

  add(recordId: number, title: string, text: string): void {
    this.pending.push({ recordId, title, text });
    this.chars += text.length;
    // In an open group the batch waits for the group's COMMIT (beforeCommit), however many pages.
    const grouped = this.group?.state === 'open';
    if (this.chars >= MAX_CHARS || (!grouped && this.pending.length >= MAX_PAGES)) this.flush();
    else if (!this.timer && !grouped) this.timer = setTimeout(() => this.flush(), MAX_WAIT_MS);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.chars = 0;
    try {
      this.captures.addPageTexts(batch);
    } catch {
      // Search text is derived data: a batch the database refuses (e.g. a full disk) is dropped,
      // the captures themselves are safe; an import of the crawl's WARCs rebuilds it.
    }
  }

  /** Drop the batch: the rows it names were rolled back (their WARC records are reindexed). */
  discard(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = [];
    this.chars = 0;
  }
}
