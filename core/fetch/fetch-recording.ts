/**
 * Everything recorded for one request: the bytes sent, the bytes received (split by the
 * framer into head, raw body and entity, spooled and digested as they stream), and, at the
 * end, the FetchResult. It is the WireRecorder a tapped socket reports to.
 */
import { TroveError } from '../errors.ts';
import { RunningDigest, sha1Base32 } from '../formats/digest.ts';
import { classifyFetchError } from './fetch-errors.ts';
import type { FetchResult } from './fetch-types.ts';
import { ResponseFramer } from './response-framer.ts';
import type { FramerLimits, FramerSink } from './response-framer.ts';
import type { ResponseHead } from '../formats/http-head.ts';
import type { BodyFraming } from './body-framing.ts';
import { SpoolWriter, spoolFromBuffer } from './spool.ts';
import type { Spool } from './spool.ts';
import type { WireRecorder } from './wire-tap.ts';

export interface RecordingOptions extends FramerLimits {
  url: string;
  spoolDir: string;
  spoolMemoryBytes?: number;
  /** Called (once) when the recording wants the request stopped: body limit or bad bytes. */
  onStop(reason: TroveError): void;
}

/** How the request ended, as the fetcher saw it. */
export interface RecordingEnd {
  /** Why the fetcher stopped the request itself (timeout, caller abort, limit), if it did. */
  stopReason: unknown;
  /** The error undici reported, if any. */
  undiciError: unknown;
  startedAt: number;
  durationMs: number;
}

/** A request head never needs more than this; anything beyond is not a head. */
const MAX_SENT_BYTES = 1024 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');

export class FetchRecording implements WireRecorder, FramerSink {
  remoteAddress: string | null = null;
  /** The socket had carried a request before this one. */
  reusedSocket = false;
  bytesReceived = 0;

  readonly #opts: RecordingOptions;
  readonly #framer: ResponseFramer;
  #sent: Buffer[] = [];
  #sentBytes = 0;
  #responseHead: Buffer | null = null;
  #body: SpoolWriter | null = null;
  #entity: SpoolWriter | null = null;
  #block = new RunningDigest('sha1');
  #payload = new RunningDigest('sha1');
  #stopped = false;
  #finished = false;

  constructor(opts: RecordingOptions) {
    this.#opts = opts;
    this.#framer = new ResponseFramer(opts, this);
  }

  // WireRecorder

  attached(info: { remoteAddress: string | null; reused: boolean }): void {
    this.remoteAddress = info.remoteAddress;
    this.reusedSocket = info.reused;
  }

  sent(chunk: Buffer): void {
    if (this.#finished || this.#sentBytes >= MAX_SENT_BYTES) return;
    this.#sent.push(chunk);
    this.#sentBytes += chunk.length;
  }

  received(chunk: Buffer): boolean {
    if (this.#finished) return false;
    this.bytesReceived += chunk.length;
    if (!this.#framer.open) return false;
    this.#framer.push(chunk);
    this.#checkFramer();
    return this.#framer.open;
  }

  ended(): void {
    if (this.#finished) return;
    this.#framer.end();
  }

  // FramerSink

  onHead(raw: Buffer, _head: ResponseHead, framing: BodyFraming): void {
    this.#responseHead = raw;
    this.#block.update(raw);
    this.#body = new SpoolWriter(this.#opts.spoolDir, this.#opts.spoolMemoryBytes);
    this.#entity = framing.kind === 'chunked' ? new SpoolWriter(this.#opts.spoolDir, this.#opts.spoolMemoryBytes) : this.#body;
  }

  // The framer's buffers are views of the socket's reads, which nothing changes afterwards: the
  // spools keep them rather than copies (SpoolWriter.writeOwned).
  onBody(raw: Buffer): void {
    this.#body?.writeOwned(raw);
    this.#block.update(raw);
  }

  onEntity(chunk: Buffer): void {
    if (this.#entity !== this.#body) this.#entity?.writeOwned(chunk);
    this.#payload.update(chunk);
  }

  /** Whether a failure of this attempt may be retried on a fresh connection. */
  get retryable(): boolean {
    return this.reusedSocket && this.bytesReceived === 0;
  }

  #checkFramer(): void {
    if (this.#stopped) return;
    const f = this.#framer;
    if (f.state === 'failed' || f.state === 'truncated') {
      this.#stopped = true;
      this.#opts.onStop(f.error ?? new TroveError('FETCH_BODY_LIMIT', `body cut at ${f.maxBodyBytes} bytes`));
    }
  }

  /** Build the result. Call once; the recording ignores bytes afterwards. */
  finish(end: RecordingEnd): FetchResult {
    this.#finished = true;
    const f = this.#framer;
    const head = f.head;
    const result: FetchResult = {
      url: this.#opts.url,
      startedAt: end.startedAt,
      durationMs: end.durationMs,
      remoteAddress: this.remoteAddress,
      outcome: 0,
      error: null,
      status: head?.status ?? null,
      statusText: head?.statusText ?? null,
      httpVersion: head?.httpVersion ?? null,
      headers: head?.headers ?? [],
      requestHead: this.#requestHead(),
      responseHead: this.#responseHead,
      body: null,
      entity: null,
      truncated: null,
      blockDigest: null,
      payloadDigest: null,
      bytesReceived: this.bytesReceived,
    };

    // The framer saw every byte first, so when it says the message is whole (or cut at our
    // limit) that stands, whatever undici reported about the connection afterwards.
    const whole = f.state === 'complete' || (head !== null && f.state !== 'failed' && end.stopReason === null && end.undiciError === null);
    if (whole || f.state === 'truncated') {
      result.outcome = (head as ResponseHead).status;
      result.truncated = f.state === 'truncated' ? 'length' : null;
    } else {
      // The peer closing inside a body the framer was reading is a lost connection, whatever
      // undici makes of it (a chunked body closed mid-chunk is an HTTPParserError to undici).
      const lost = f.state === 'incomplete' && head !== null;
      const failure = classifyFetchError(f.state === 'failed' ? f.error : (end.stopReason ?? (lost ? null : end.undiciError) ?? incompleteError(f.state)));
      result.outcome = failure.outcome;
      result.error = { code: failure.code, message: failure.message };
      const headless = failure.code === 'FETCH_HEADERS_TOO_LARGE' || failure.code === 'FETCH_TOO_MANY_HEADERS';
      if (head !== null || (!headless && f.partialHead().length > 0)) result.truncated = failure.truncation;
      if (head === null && !headless) {
        const prefix = f.partialHead();
        if (prefix.length > 0) {
          result.body = spoolFromBuffer(prefix);
          result.blockDigest = sha1Base32(prefix);
        }
        this.#body?.abandon();
        return result;
      }
    }

    if (result.error?.code === 'FETCH_SPOOL_FAILED') {
      this.abandon();
    } else if (this.#body !== null) {
      result.body = this.#body.finish();
      result.entity = this.#entity === this.#body ? result.body : (this.#entity as SpoolWriter).finish();
      result.blockDigest = this.#block.digest();
      // Left to storedPayloadDigest() when the chunk framing broke.
      result.payloadDigest = f.chunkingBroken ? null : this.#payload.digest();
    }
    return result;
  }

  /**
   * Fill in the payload digest finish() left out for a body whose chunk framing broke: the
   * transfer coding cannot be removed from the body as stored, so the WARC payload is those
   * bytes and the digest is over them (the bytes-as-transferred convention, the one warcio and
   * every verifier compute for such a body; docs/FORMATS.md). A digest of what de-chunked before
   * the bad byte would name bytes the record does not hold as its payload. Hashed from the spool
   * after the fetch rather than as bytes arrive, so the chunked bodies that decode (nearly all)
   * are not hashed a third time (the block digest and the entity's already see them). If the
   * spool cannot be read back, the field stays null (omitted).
   */
  async storedPayloadDigest(result: FetchResult): Promise<FetchResult> {
    if (!this.#framer.chunkingBroken || result.body === null || result.payloadDigest !== null) return result;
    const digest = new RunningDigest('sha1');
    try {
      for await (const chunk of result.body.stream()) digest.update(chunk as Buffer);
      result.payloadDigest = digest.digest();
    } catch {
      result.payloadDigest = null;
    }
    return result;
  }

  /** Drop spooled bytes of an attempt whose result is thrown away (a retry). */
  abandon(): void {
    this.#finished = true;
    this.#body?.abandon();
    if (this.#entity !== this.#body) this.#entity?.abandon();
  }

  #requestHead(): Buffer {
    const all = Buffer.concat(this.#sent, this.#sentBytes);
    const end = all.indexOf(CRLFCRLF);
    return end >= 0 ? all.subarray(0, end + 4) : all;
  }
}

function incompleteError(state: string): TroveError {
  if (state === 'incomplete') return new TroveError('FETCH_CONNECTION_LOST', 'connection closed before the response ended');
  return new TroveError('FETCH_FAILED', `request ended with the response ${state}`);
}

/** Spools of a result, for disposal (body and entity may be the same object). */
export function resultSpools(r: FetchResult): Spool[] {
  const out: Spool[] = [];
  if (r.body) out.push(r.body);
  if (r.entity && r.entity !== r.body) out.push(r.entity);
  return out;
}
