/**
 * The mirror's plan: which URL goes to which file, decided before any file is written so links
 * can be rewritten to files that will exist. Kept in a temporary SQLite file (not in memory: a
 * big crawl has millions of URLs; storage/mirror-plan-store.ts), looked up by URL key while
 * pages are rewritten.
 *
 * Collisions are settled here, deterministically (URLs are placed in URL-key order):
 * - a file where a folder is needed (`/a` saved as file `a`, then `/a/b`): the folder becomes `a_`;
 * - a second URL on the same file name (`/x` and `/x?` with an empty query): `name-1.ext`, …;
 * - names that differ only in case count as the same, so the mirror also works on case-folding
 *   file systems (macOS, Windows).
 */
import { surtKey } from '../scope/surt.ts';
import { MirrorPlanStore } from '../storage/mirror-plan-store.ts';
import type { PlannedUrl } from '../storage/mirror-plan-store.ts';
import { mirrorSegments, splitExt } from './mirror-paths.ts';

export type PlannedFile = PlannedUrl;

export class MirrorPlan {
  readonly file: string;
  readonly #store: MirrorPlanStore;

  constructor(file: string) {
    this.file = file;
    this.#store = new MirrorPlanStore(file);
  }

  /** Place a URL; returns its path. Call inside `batch()` for speed. */
  add(urlkey: string, url: URL, ts: string, mime: string | null): string {
    const known = this.#store.pathOf(urlkey);
    if (known !== null) return known;
    const segs = mirrorSegments(url, mime);
    let dir = '';
    for (const seg of segs.slice(0, -1)) {
      let name = seg;
      for (;;) {
        const candidate = dir ? `${dir}/${name}` : name;
        const node = this.#store.nodeKind(candidate.toLowerCase());
        if (node === undefined) {
          this.#store.addNode(candidate.toLowerCase(), 'd');
          dir = candidate;
          break;
        }
        if (node === 'd') {
          dir = candidate;
          break;
        }
        name = `${name}_`;
      }
    }
    const file = segs.at(-1)!;
    const { stem, ext } = splitExt(file);
    let path = '';
    for (let n = 0; ; n++) {
      const name = n === 0 ? file : `${stem}-${n}${ext ? `.${ext}` : ''}`;
      path = `${dir}/${name}`;
      if (this.#store.nodeKind(path.toLowerCase()) === undefined) break;
    }
    this.#store.addNode(path.toLowerCase(), 'f');
    this.#store.addUrl({ urlkey, url: url.href, ts, path, mime });
    return path;
  }

  batch<T>(fn: () => T): T {
    return this.#store.transaction(fn);
  }

  /** The mirror path of a URL (any scheme variant of it: the key is the SURT), or null. */
  pathFor(url: string): string | null {
    return this.#store.pathOf(surtKey(url));
  }

  count(): number {
    return this.#store.count();
  }

  /** Every planned file, in URL-key order, read in pages. */
  *files(pageSize = 500): Generator<PlannedFile> {
    let after = '';
    for (;;) {
      const rows = this.#store.urlsAfter(after, pageSize);
      if (rows.length === 0) return;
      after = rows.at(-1)!.urlkey;
      yield* rows;
    }
  }

  close(): void {
    this.#store.close();
  }
}
