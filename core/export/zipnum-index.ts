/**
 * A WACZ's index, ZipNum for every archive size (the `cdxj-gzip-1.0` layout py-wacz and
 * Browsertrix write, and the one ReplayWeb.page, pywb and `wacz validate` all accept; see
 * export-wacz.ts): the sorted CDXJ lines in blocks of BLOCK_LINES lines, each block its own gzip
 * member, concatenated into `indexes/index.cdx.gz`; and `indexes/index.idx`, a `!meta` line then
 * one line per block, keyed by the block's first `urlkey timestamp`, with the member's offset,
 * length and SHA-256. A reader binary-searches the small idx and fetches one block per lookup
 * instead of loading the index; a plain gzip reader (pywb) reads index.cdx.gz as one CDXJ file.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

export const BLOCK_LINES = 3000;
export const ZIPNUM_META = '!meta 0 {"format":"cdxj-gzip-1.0","filename":"index.cdx.gz"}';

/**
 * One idx line per block, built while the blocks are written. The key in it is a copy: it is cut
 * from a block's first line, and a line merged from a sort run on disk is a V8 slice of the
 * chunk it was read in (external-sort.ts), so a key kept as that slice held its whole chunk, one
 * per block: with 256 KiB chunks, 100 MB of heap for the 1.2M captures of a 20 GB archive.
 */
export class ZipNumBlocks {
  readonly #blockLines: number;
  readonly idx: string[] = [ZIPNUM_META];
  #offset = 0;
  #lines = 0;

  constructor(blockLines = BLOCK_LINES) {
    this.#blockLines = blockLines;
  }

  get lines(): number {
    return this.#lines;
  }

  /** The gzip members of `index.cdx.gz`, one per block of sorted lines; fills `idx` as it goes. */
  async *blocks(sorted: AsyncIterable<string>): AsyncGenerator<Buffer> {
    let block: string[] = [];
    const emit = (): Buffer => {
      const member = gzipSync(block.join('\n') + '\n', { level: 6 });
      const first = block[0]!;
      const key = ownCopy(first.slice(0, first.indexOf(' ', first.indexOf(' ') + 1)));
      const digest = createHash('sha256').update(member).digest('hex');
      this.idx.push(`${key} ${JSON.stringify({ offset: this.#offset, length: member.length, digest: `sha256:${digest}` })}`);
      this.#offset += member.length;
      block = [];
      return member;
    };
    for await (const line of sorted) {
      block.push(line);
      this.#lines++;
      if (block.length >= this.#blockLines) yield emit();
    }
    if (block.length > 0) yield emit();
  }

  idxText(): string {
    return this.idx.join('\n') + '\n';
  }
}

/**
 * A string that shares no memory with `s` (V8 has no call for it: a slice, a concatenation or a
 * regexp match can all point into the original). Decoding fresh bytes always makes a new string;
 * the bytes are not kept, so no pooled Buffer slab is held either.
 */
function ownCopy(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}
