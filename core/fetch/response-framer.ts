/**
 * Splits the raw bytes received for one request into the parts an archive needs: the head,
 * the raw body (chunk framing kept) and the entity (framing removed, content-coding kept), and
 * finds the exact byte where the message ends. It sees the bytes before undici does (see
 * wire-tap.ts) and is the authority on what was received; undici runs the connection.
 *
 * Hand-written for the reasons given in formats/http-head.ts and formats/chunked-coding.ts: no library
 * exposes the wire bytes and their boundaries.
 */
import { TroveError } from '../errors.ts';
import { ChunkedDecoder } from '../formats/chunked-coding.ts';
import { parseResponseHead, type ResponseHead } from '../formats/http-head.ts';
import { bodyFraming, type BodyFraming } from './body-framing.ts';

export interface FramerLimits {
  method: string;
  /** Whole head (status line, fields, line ends) may not exceed this. */
  maxHeaderBytes: number;
  maxHeaderCount: number;
  /** Raw body bytes kept; past this the body is cut and the framer stops. */
  maxBodyBytes: number;
  /** A lower cut for this response, from its head (null: `maxBodyBytes`). */
  bodyLimitForHead?: (head: ResponseHead) => number | null;
}

/** Receives the parts as they are found. Buffers are views of the pushed bytes: copy to keep, unless the pushed buffers are never changed (socket reads). */
export interface FramerSink {
  onHead(raw: Buffer, head: ResponseHead, framing: BodyFraming): void;
  onBody(raw: Buffer): void;
  onEntity(chunk: Buffer): void;
}

export type FramerState =
  | 'head' // waiting for the end of the head
  | 'body' // reading the body
  | 'complete' // the message ended where its framing says
  | 'truncated' // stopped at maxBodyBytes
  | 'incomplete' // the peer closed before the message ended
  | 'failed'; // malformed; see `error`

const HTTP_PREFIX = Buffer.from('HTTP/', 'latin1');

export class ResponseFramer {
  state: FramerState = 'head';
  error: TroveError | null = null;
  head: ResponseHead | null = null;
  framing: BodyFraming | null = null;
  /** Raw body bytes passed to the sink. */
  bodyBytes = 0;
  /** Heads of 1xx informational responses seen before the final one (not part of the record). */
  informational: Buffer[] = [];
  /**
   * The body was chunked and a byte of it, passed to the sink, is not chunked coding: the
   * transfer coding cannot be removed from the raw body, so the entity is only what decoded
   * before that byte (see FetchRecording.finish for the payload digest this leads to).
   */
  chunkingBroken = false;

  readonly #limits: FramerLimits;
  readonly #sink: FramerSink;
  #headChunks: Buffer[] = [];
  #headSize = 0;
  #lines = 0;
  /** Bytes of the current line so far, to spot the empty line ending the head. */
  #lineLength = 0;
  #remaining = 0;
  #chunked: ChunkedDecoder | null = null;
  /** The body cut: `maxBodyBytes`, or lower once the head is read (`bodyLimitForHead`). */
  #maxBody: number;

  constructor(limits: FramerLimits, sink: FramerSink) {
    this.#limits = limits;
    this.#sink = sink;
    this.#maxBody = limits.maxBodyBytes;
  }

  /** The body cut in force (lowered by the head, when `bodyLimitForHead` says so). */
  get maxBodyBytes(): number {
    return this.#maxBody;
  }

  /** Whether the framer still wants bytes. */
  get open(): boolean {
    return this.state === 'head' || this.state === 'body';
  }

  /** Bytes of a head that never completed (for a caller that archives prefixes). */
  partialHead(): Buffer {
    return Buffer.concat(this.#headChunks, this.#headSize);
  }

  /** Feed received bytes. Errors are recorded in `state`/`error`, never thrown. */
  push(buf: Buffer): void {
    try {
      let rest: Buffer | null = buf;
      while (rest !== null && rest.length > 0 && this.open) {
        rest = this.state === 'head' ? this.#pushHead(rest) : this.#pushBody(rest);
      }
    } catch (err) {
      this.#fail(err);
    }
  }

  /** The peer closed the connection. */
  end(): void {
    if (this.state === 'body' && this.framing?.kind === 'close') this.state = 'complete';
    else if (this.open) this.state = 'incomplete';
  }

  /** Returns the bytes after the head, or null when the head is still incomplete. */
  #pushHead(buf: Buffer): Buffer | null {
    const { maxHeaderBytes, maxHeaderCount } = this.#limits;
    for (let i = 0; i < buf.length; i++) {
      const b = buf[i];
      const offset = this.#headSize + i;
      if (offset < HTTP_PREFIX.length && b !== HTTP_PREFIX[offset]) {
        // Keep what arrived (within the head limit) for a caller that archives prefixes.
        const keep = buf.subarray(0, Math.max(0, maxHeaderBytes - this.#headSize));
        this.#headChunks.push(Buffer.from(keep));
        this.#headSize += keep.length;
        throw new TroveError('FETCH_BAD_STATUS_LINE', 'response does not start with an HTTP status line');
      }
      if (offset >= maxHeaderBytes) {
        throw new TroveError('FETCH_HEADERS_TOO_LARGE', `response head exceeds ${maxHeaderBytes} bytes`);
      }
      if (b === 0x0a) {
        const empty = this.#lineLength === 0;
        this.#lineLength = 0;
        if (empty) return this.#endHead(buf, i + 1);
        if (++this.#lines > maxHeaderCount + 1) {
          throw new TroveError('FETCH_TOO_MANY_HEADERS', `response has more than ${maxHeaderCount} header fields`);
        }
      } else if (b !== 0x0d) {
        this.#lineLength++;
      }
    }
    this.#headChunks.push(Buffer.from(buf));
    this.#headSize += buf.length;
    return null;
  }

  #endHead(buf: Buffer, end: number): Buffer {
    const raw = Buffer.concat([...this.#headChunks, buf.subarray(0, end)], this.#headSize + end);
    // Until it parses, the head stays available as partialHead() for a caller keeping prefixes.
    this.#headChunks = [raw];
    this.#headSize = raw.length;
    const head = parseResponseHead(raw);
    const framing = bodyFraming(head, this.#limits.method);
    this.#headChunks = [];
    this.#headSize = 0;
    this.#lines = 0;
    if (head.status >= 100 && head.status < 200 && head.status !== 101) {
      // 103 Early Hints and friends: the final response follows on the same request.
      this.informational.push(raw);
      return buf.subarray(end);
    }
    this.head = head;
    this.framing = framing;
    const cut = this.#limits.bodyLimitForHead?.(head);
    if (cut !== null && cut !== undefined) this.#maxBody = Math.min(this.#maxBody, cut);
    this.#sink.onHead(raw, head, framing);
    if (framing.kind === 'none') {
      this.state = 'complete';
    } else {
      this.state = 'body';
      if (framing.kind === 'length') this.#remaining = framing.length;
      if (framing.kind === 'chunked') this.#chunked = new ChunkedDecoder((c) => this.#sink.onEntity(c));
    }
    return buf.subarray(end);
  }

  /** Returns null: a body step consumes all it is given or ends the message. */
  #pushBody(buf: Buffer): null {
    const framing = this.framing as BodyFraming;
    const budget = this.#maxBody - this.bodyBytes;
    let slice = buf;
    if (framing.kind === 'length' && slice.length > this.#remaining) slice = slice.subarray(0, this.#remaining);
    const overBudget = slice.length > budget;
    if (overBudget) slice = slice.subarray(0, Math.max(0, budget));

    let used = slice.length;
    if (framing.kind === 'chunked') {
      const decoder = this.#chunked as ChunkedDecoder;
      try {
        used = decoder.write(slice);
      } catch (err) {
        // Keep the raw bytes of this read, the bad one among them: the caller may archive the prefix.
        this.#emitBody(slice);
        this.chunkingBroken = true;
        throw err;
      }
    } else {
      this.#sink.onEntity(slice.subarray(0, used));
    }
    this.#emitBody(slice.subarray(0, used));

    if (framing.kind === 'length') {
      this.#remaining -= used;
      if (this.#remaining === 0) this.state = 'complete';
    } else if (framing.kind === 'chunked' && (this.#chunked as ChunkedDecoder).done) {
      this.state = 'complete';
    }
    if (this.state === 'body' && overBudget) this.state = 'truncated';
    return null;
  }

  #emitBody(raw: Buffer): void {
    if (raw.length === 0) return;
    this.bodyBytes += raw.length;
    this.#sink.onBody(raw);
  }

  #fail(err: unknown): void {
    this.state = 'failed';
    this.error = err instanceof TroveError ? err : new TroveError('FETCH_BAD_HTTP', String((err as Error)?.message ?? err), {}, { cause: err });
  }
}
