/**
 * Extraction for the crawl: documents up to `inlineMaxBytes` are extracted on the calling thread,
 * larger ones in a small worker_threads pool, so a huge, deeply nested or hostile document never
 * blocks the crawl loop for long. Each worker runs one job at a time under a time limit; a job
 * that runs over (or a worker that dies, e.g. out of memory) resolves with `error` set and no
 * links, and the worker is replaced. run() never rejects for a bad document, only after close().
 *
 * Why not every document in a worker (as until issue 20's eighth round): a worker is a second V8
 * isolate, with its own heap, young generation, compiled code and malloc arena, ~20 MiB of the
 * crawl's resident memory, and every document crosses to it and back by structured clone. The
 * extractor is built to run in bounded time and memory per byte (a flat tokenizer loop, no tree,
 * links and text capped, linear-time trims), so a document of a few MiB costs the crawl loop
 * tens of milliseconds, the same CPU it cost the worker plus the clone it no longer needs. The
 * Python docs crawl: peak RSS 136 MiB instead of 157, CPU and wall time unchanged (issue 20).
 * The worker stays for what is too big to take inline: it
 * starts only when such a document arrives, and stops after `idleMs` without one.
 *
 * Workers start straight from extract-worker.ts: Node 24 strips the types itself, and vitest's
 * forks run the worker with plain Node too. Idle workers are unref'd so a forgotten pool does
 * not keep the process alive.
 */
import { Worker } from 'node:worker_threads';
import { TroveError } from '../errors.ts';
import { isHtmlType, mediaType } from '../formats/media-type.ts';
import type { DocumentExtraction, DocumentInput } from './extraction-types.ts';
import { emptyExtraction } from './empty-extraction.ts';
import type { WorkerJob, WorkerMessage } from './extract-worker.ts';
import { unpackExtraction } from './extract-message.ts';
import { releaseBuffer } from '../formats/release-buffer.ts';

export type PoolResult = DocumentExtraction & { error?: string };

export interface ExtractPoolOptions {
  /** Per-job limit; the worker is terminated and restarted past it. Default 20 s. */
  jobTimeoutMs?: number;
  /** V8 old-generation limit per worker, so one document cannot exhaust the process. Default 1024. */
  maxMemoryMb?: number;
  /** The worker script; defaults to extract-worker.ts beside this file (a bundler may need to point elsewhere). */
  workerUrl?: URL;
  /**
   * Bodies of at most this many bytes are extracted on the calling thread, without a worker.
   * Default 0: none, every document goes to a worker.
   */
  inlineMaxBytes?: number;
  /** A worker with no job for this long is stopped (started again when a document needs one). Default 30 s. */
  idleMs?: number;
}

/** How run() may treat the input's body. */
export interface RunOptions {
  /**
   * The caller does not use `input.body` after this call: a body that fills its own ArrayBuffer is
   * then moved to the worker (transferred; the caller's Buffer is left empty) instead of copied.
   * A body that is a view into a larger buffer (Node's pool, a slice) is still copied.
   */
  handOver?: boolean;
}

interface Job {
  id: number;
  input: DocumentInput;
  handOver: boolean;
  resolve: (r: PoolResult) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  idle: NodeJS.Timeout | null;
  lastError: Error | null;
}

/** Workers that die before saying ready this many times in a row mean the pool cannot start. */
const MAX_START_FAILURES = 3;

export class ExtractPool {
  private readonly size: number;
  private readonly jobTimeoutMs: number;
  private readonly maxMemoryMb: number;
  private readonly workerUrl: URL;
  private readonly inlineMaxBytes: number;
  private readonly idleMs: number;
  /** Loaded at the first document taken inline: a crawl that extracts nothing never loads the HTML parser. */
  private inlineExtractor: Promise<typeof import('./extract-document.ts').extractDocument> | null = null;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private startFailures = 0;
  private brokenReason: string | null = null;

  constructor(size: number, opts: ExtractPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(size));
    this.jobTimeoutMs = opts.jobTimeoutMs ?? 20_000;
    this.maxMemoryMb = opts.maxMemoryMb ?? 1024;
    this.workerUrl = opts.workerUrl ?? new URL('./extract-worker.ts', import.meta.url);
    this.inlineMaxBytes = Math.max(0, opts.inlineMaxBytes ?? 0);
    this.idleMs = opts.idleMs ?? 30_000;
  }

  /** Workers running now (started on demand, stopped when idle). */
  get workers(): number {
    return this.slots.length;
  }

  run(input: DocumentInput, opts: RunOptions = {}): Promise<PoolResult> {
    if (this.closed) return Promise.reject(new TroveError('EXTRACT_POOL_CLOSED', 'the extraction pool is closed'));
    if (this.inlineMaxBytes > 0 && input.body.length <= this.inlineMaxBytes) return this.runInline(input, opts.handOver === true);
    if (this.brokenReason !== null) return Promise.resolve(failed(input, this.brokenReason));
    return new Promise<PoolResult>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, handOver: opts.handOver === true, resolve, reject });
      this.dispatch();
    });
  }

  private async runInline(input: DocumentInput, handOver: boolean): Promise<PoolResult> {
    this.inlineExtractor ??= import('./extract-document.ts').then((m) => m.extractDocument);
    const extract = await this.inlineExtractor;
    try {
      return extract(input);
    } catch (err) {
      return failed(input, `extraction failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      // Handed over: the caller is done with it, so its memory goes now, as a worker frees a body moved to it.
      if (handOver) releaseBuffer(input.body);
    }
  }

  /** Terminate every worker; queued and running jobs reject with EXTRACT_POOL_CLOSED. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = new TroveError('EXTRACT_POOL_CLOSED', 'the extraction pool was closed');
    for (const job of this.queue.splice(0)) job.reject(error);
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.timer) clearTimeout(slot.timer);
        if (slot.idle) clearTimeout(slot.idle);
        const job = slot.job;
        slot.job = null;
        job?.reject(error);
        await slot.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(this.workerUrl, {
      // Its thread's name in the OS (top -H, /proc), so its CPU can be told from the crawl thread's.
      name: 'trove-extract',
      // A small young generation: tokenizing a big page makes hundreds of MB of short-lived
      // strings, and with V8's default semi-spaces they pile up before a collection. On a 512 MiB
      // gzip bomb extracted to 32 MiB (bench/reliability-bench.ts) 8 MB took the crawler's peak RSS
      // from ~520 MB to ~440 for ~8% more extraction CPU on ordinary pages; 4 MB was little better
      // for ~20% more CPU.
      resourceLimits: { maxOldGenerationSizeMb: this.maxMemoryMb, maxYoungGenerationSizeMb: 8 },
    });
    const slot: Slot = { worker, ready: false, job: null, timer: null, idle: null, lastError: null };
    worker.unref();
    worker.on('message', (msg: WorkerMessage) => this.onMessage(slot, msg));
    worker.on('error', (err) => {
      slot.lastError = err;
    });
    worker.on('exit', (code) => this.onExit(slot, code));
    return slot;
  }

  private onMessage(slot: Slot, msg: WorkerMessage): void {
    if (msg.type === 'ready') {
      slot.ready = true;
      this.startFailures = 0;
      this.dispatch();
      return;
    }
    const job = slot.job;
    if (job === null || job.id !== msg.id) return; // a late answer for a job that already timed out
    this.finish(slot);
    job.resolve(msg.type === 'result' ? unpackExtraction(msg.result) : failed(job.input, `extraction failed: ${msg.error}`));
    this.dispatch();
  }

  private onExit(slot: Slot, code: number): void {
    const index = this.slots.indexOf(slot);
    const job = slot.job;
    if (job !== null) {
      this.finish(slot);
      const why = slot.lastError ? slot.lastError.message : `worker exited with code ${code}`;
      job.resolve(failed(job.input, `extraction worker died: ${why}`));
    }
    if (slot.idle) clearTimeout(slot.idle);
    if (this.closed || index < 0) return; // closed, or stopped when idle (already out of the pool)
    this.slots.splice(index, 1);
    if (!slot.ready && ++this.startFailures >= MAX_START_FAILURES) {
      this.brokenReason = `extraction workers cannot start: ${slot.lastError?.message ?? `exit code ${code}`}`;
      for (const queued of this.queue.splice(0)) queued.resolve(failed(queued.input, this.brokenReason));
      return;
    }
    // Its replacement starts when a job needs one (at once if jobs are waiting).
    this.dispatch();
  }

  private finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    slot.worker.unref();
  }

  private dispatch(): void {
    // Start workers on demand: one per waiting job not yet covered by a starting one, up to size.
    const starting = this.slots.filter((s) => !s.ready).length;
    for (let n = Math.min(this.queue.length - starting, this.size - this.slots.length); n > 0; n--) this.slots.push(this.spawn());
    for (const slot of this.slots) {
      if (this.queue.length === 0) break;
      if (!slot.ready || slot.job !== null) continue;
      const job = this.queue.shift()!;
      if (slot.idle) clearTimeout(slot.idle);
      slot.idle = null;
      slot.job = job;
      slot.worker.ref();
      slot.timer = setTimeout(() => this.onTimeout(slot, job), this.jobTimeoutMs);
      // Transfer the body, never clone it: cloning a view copies its whole backing ArrayBuffer
      // (8 KiB for a pooled small Buffer, far more for a slice of a big one). A body handed over
      // that fills its own buffer moves as it is; otherwise a private copy of exactly its bytes
      // moves (transferring the caller's buffer would detach a Buffer it still holds).
      const own = job.input.body;
      const movable = job.handOver && own.byteOffset === 0 && own.byteLength === own.buffer.byteLength && own.buffer instanceof ArrayBuffer;
      const body = movable ? new Uint8Array(own.buffer, 0, own.byteLength) : new Uint8Array(own);
      const message: WorkerJob = { id: job.id, input: { ...job.input, body: body as Buffer } };
      slot.worker.postMessage(message, [body.buffer]);
    }
    if (!Number.isFinite(this.idleMs)) return;
    for (const slot of this.slots) {
      if (!slot.ready || slot.job !== null || slot.idle !== null) continue;
      slot.idle = setTimeout(() => this.retire(slot), this.idleMs);
      slot.idle.unref();
    }
  }

  /** Stops a worker that has had no job for idleMs: its isolate's memory goes back to the system. */
  private retire(slot: Slot): void {
    slot.idle = null;
    const index = this.slots.indexOf(slot);
    if (slot.job !== null || index < 0) return;
    this.slots.splice(index, 1);
    slot.ready = false;
    void slot.worker.terminate();
  }

  private onTimeout(slot: Slot, job: Job): void {
    if (slot.job !== job) return;
    this.finish(slot);
    slot.ready = false; // no new job for it: it is about to be terminated
    job.resolve(failed(job.input, `extraction timed out after ${this.jobTimeoutMs} ms`));
    // The exit handler starts the replacement.
    void slot.worker.terminate();
  }
}

/** The answer for a job that produced nothing: no links, the error says why. */
function failed(input: DocumentInput, error: string): PoolResult {
  const mime = mediaType(input.mime) ?? '';
  return { ...emptyExtraction('other', isHtmlType(mime)), error };
}
