/**
 * Sorting more text lines than fit comfortably in memory, bytewise (UTF-8 order, as CDXJ and
 * `LC_ALL=C sort` want): lines are gathered into runs of at most `maxRunBytes`, each run is
 * sorted in memory and written to a temporary file, and the runs are merged with a heap. When
 * everything fits in one run nothing touches the disk.
 *
 * Threshold: 64 MiB of line text per run by default (JavaScript strings take about twice their
 * length in bytes, plus ~40 bytes of object overhead each, which the estimate includes). That is
 * about 128,000 CDXJ lines of ~240 characters (the big-archive bench's: 1.2M captures in 20 GB
 * of WARCs make 10 runs). Each run being merged holds an open file, a read buffer and the chunks
 * of text its next lines are in (RUN_READ_BYTES), so at most MAX_OPEN_RUNS are merged at once: past
 * that, runs are first merged into longer runs on disk, in passes, and memory stays the same
 * whatever the number of lines (a 50 GB crawl's few million captures make a few dozen runs).
 *
 * The lines read back from a run are V8 slices of the chunk they were read in: a caller
 * that keeps one (a ZipNum key, zipnum-index.ts) keeps a copy, or it holds the whole chunk.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { TroveError } from '../errors.ts';
import { compareBytewise, sortCdxjLines as sortBytewise } from '../archive/cdxj.ts';

export const DEFAULT_MAX_RUN_BYTES = 64 << 20;
/**
 * Bytes read from a run at a time. 64 KiB, not 256: each run being merged holds its read buffer,
 * the chunk decoded from it and the one read ahead, so 256 KiB cost ~1 MB a run; merging 10 runs
 * of 1.2M lines peaked at 158-164 MB RSS with 256 KiB and 140-144 MB with 64, no slower.
 */
const RUN_READ_BYTES = 64 << 10;
/** Runs merged at once at most (disk runs plus the last run, kept in memory). */
export const MAX_OPEN_RUNS = 16;

export interface SortOptions {
  /** Estimated memory per in-memory run (default 64 MiB). */
  maxRunBytes?: number;
  /** Folder for run files (created when needed, removed afterwards). */
  tmpDir: string;
  /** Called after each run is written to disk. */
  onRun?: (runs: number) => void;
  /** Runs merged at once at most (default MAX_OPEN_RUNS, at least 2). */
  maxOpenRuns?: number;
}

/** Estimated heap cost of keeping a line: two bytes per UTF-16 unit plus the string's header. */
function lineCost(line: string): number {
  return line.length * 2 + 40;
}

/** The lines of `source`, sorted bytewise. Lines must not contain `\n`. Temporary files are removed when iteration ends. */
export async function* sortLines(source: AsyncIterable<string> | Iterable<string>, opts: SortOptions): AsyncGenerator<string> {
  const maxRun = opts.maxRunBytes ?? DEFAULT_MAX_RUN_BYTES;
  let run: string[] = [];
  let runBytes = 0;
  const runs: string[] = [];
  let made = 0;
  let madeDir = false;
  try {
    for await (const line of source) {
      if (line.includes('\n')) throw new TroveError('EXPORT_BAD_LINE', 'a line to sort contains a newline', { line: line.slice(0, 200) });
      run.push(line);
      runBytes += lineCost(line);
      if (runBytes >= maxRun) {
        if (!madeDir) {
          await fsp.mkdir(opts.tmpDir, { recursive: true });
          madeDir = true;
        }
        runs.push(await writeRun(sortBytewise(run), path.join(opts.tmpDir, `run-${made++}.txt`)));
        opts.onRun?.(made);
        run = [];
        runBytes = 0;
      }
    }
    sortBytewise(run);
    if (runs.length === 0) {
      yield* run;
      return;
    }
    // The last run stays in memory and is merged with the disk runs: at most maxOpen - 1 of those.
    const maxOpen = Math.max(2, opts.maxOpenRuns ?? MAX_OPEN_RUNS);
    while (runs.length > maxOpen - 1) {
      const group = runs.splice(0, maxOpen);
      runs.push(await writeRun(mergeRuns(group.map((r) => readLines(r))), path.join(opts.tmpDir, `run-${made++}.txt`)));
      await Promise.all(group.map((r) => fsp.rm(r, { force: true })));
    }
    yield* mergeRuns([...runs.map((r) => readLines(r)), arrayLines(run)]);
  } finally {
    if (madeDir) await fsp.rm(opts.tmpDir, { recursive: true, force: true });
  }
}

/**
 * Write `lines`, each ending in `\n`, in batches of about 1 MiB (one string for millions of
 * lines would pass V8's string limit), waiting for `drain` when the stream asks. Does not end it.
 */
export async function writeLines(out: Writable, lines: Iterable<string> | AsyncIterable<string>): Promise<void> {
  let batch = '';
  /** Add a line; true when the batch is full. */
  const add = (line: string): boolean => (batch += line + '\n').length >= 1 << 20;
  const flush = async (): Promise<void> => {
    if (!out.write(batch)) await once(out, 'drain');
    batch = '';
  };
  // An array is walked without an await per line (for await would queue a microtask for each).
  if (Symbol.iterator in lines) {
    for (const line of lines) if (add(line)) await flush();
  } else {
    for await (const line of lines) if (add(line)) await flush();
  }
  if (batch) out.write(batch);
}

async function writeRun(lines: Iterable<string> | AsyncIterable<string>, file: string): Promise<string> {
  const out = fs.createWriteStream(file);
  try {
    await writeLines(out, lines);
    out.end();
    await once(out, 'finish');
  } catch (err) {
    out.destroy();
    throw new TroveError('EXPORT_WRITE_FAILED', `cannot write sort run ${file}: ${(err as Error).message}`, { path: file }, { cause: err });
  }
  return file;
}

async function* arrayLines(lines: string[]): AsyncGenerator<string> {
  yield* lines;
}

/** Lines of a file split on `\n` only (readline would also split on a lone `\r`). */
async function* readLines(file: string): AsyncGenerator<string> {
  const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: RUN_READ_BYTES });
  let rest = '';
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop()!;
      yield* parts;
    }
    if (rest !== '') yield rest;
  } finally {
    stream.destroy();
  }
}

interface HeapItem {
  line: string;
  it: AsyncIterator<string>;
}

/** k-way merge of sorted line sources with a binary min-heap. */
export async function* mergeRuns(sources: AsyncIterable<string>[]): AsyncGenerator<string> {
  const heap: HeapItem[] = [];
  const its = sources.map((s) => s[Symbol.asyncIterator]());
  try {
    for (const it of its) {
      const first = await it.next();
      if (!first.done) push(heap, { line: first.value, it });
    }
    while (heap.length > 0) {
      const top = heap[0]!;
      yield top.line;
      const next = await top.it.next();
      if (next.done) {
        const last = heap.pop()!;
        if (heap.length > 0) {
          heap[0] = last;
          siftDown(heap, 0);
        }
      } else {
        top.line = next.value;
        siftDown(heap, 0);
      }
    }
  } finally {
    await Promise.all(its.map((it) => it.return?.()));
  }
}

function push(heap: HeapItem[], item: HeapItem): void {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (compareBytewise(heap[parent]!.line, heap[i]!.line) <= 0) break;
    [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
    i = parent;
  }
}

function siftDown(heap: HeapItem[], i: number): void {
  const n = heap.length;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < n && compareBytewise(heap[l]!.line, heap[m]!.line) < 0) m = l;
    if (r < n && compareBytewise(heap[r]!.line, heap[m]!.line) < 0) m = r;
    if (m === i) return;
    [heap[m], heap[i]] = [heap[i]!, heap[m]!];
    i = m;
  }
}
