/**
 * Recomputes a record's WARC-Block-Digest and WARC-Payload-Digest while its block streams past.
 *
 * The payload of an HTTP record is the entity body after the HTTP head. When the head says
 * `Transfer-Encoding: chunked`, producers disagree on what they digested: WARC 1.1 (§6.2)
 * calls the payload the entity body with the transfer coding removed (what Trove writes), while wget 1.14 and
 * warcprox (IAH-urls-wget.warc.gz, example-iana.org-chunked.warc in the corpus) and warcio
 * digest the bytes as stored, chunk framing included. So both are computed and either one
 * matching passes, and `chunkedConvention` says which one it was so `trove check` can count them
 * per file. A WARC-Truncated record whose stored body is a clean prefix of chunked coding (cut
 * mid-chunk or mid-line) may carry the digest of what that prefix de-chunks to. A body holding
 * bytes that are not chunked coding has no de-chunked entity, truncated or not: only the digest
 * of the bytes as stored is right for it (what warcio checks, and what Trove writes for it).
 * Content-Encoding (gzip, br) is never removed: it is part of the entity.
 *
 * A revisit's payload digest names another record's payload, so it is not checked here.
 */
import type { Hash } from 'node:crypto';
import { ChunkedDecoder } from '../formats/chunked-coding.ts';
import type { FieldProblem } from './check-fields.ts';
import { isChunked, parseHttpHead } from '../formats/http-head.ts';
import { blockIsHttp } from './http-block.ts';
import { digestEncodingOf, hashFor, parseLabelledDigest } from './read-digest.ts';
import type { WarcRecordHead } from './read-record.ts';

/** An HTTP head longer than this is not waited for: the payload digest is then not checked. */
const MAX_HTTP_HEAD = 64 << 10;

interface Target {
  field: 'WARC-Block-Digest' | 'WARC-Payload-Digest';
  label: string;
  value: string;
  hash: Hash;
}

/**
 * Which bytes a chunked response's WARC-Payload-Digest was computed over, when it matched:
 * `entity` = the de-chunked entity body (WARC 1.1 §6.2, what Trove writes), `transfer` = the
 * body as transferred, chunk framing included (wget, warcprox, warcio).
 */
export type ChunkedConvention = 'entity' | 'transfer';

export class RecordDigests {
  readonly #problems: FieldProblem[] = [];
  /** Set by finish() for a chunked HTTP payload whose digest matched one of the two conventions. */
  chunkedConvention: ChunkedConvention | null = null;
  #block: Target | null = null;
  #payload: Target | null = null;
  /** De-chunked payload hash, for chunked HTTP bodies. */
  #dechunked: { hash: Hash; decoder: ChunkedDecoder; failed: boolean } | null = null;
  readonly #http: boolean;
  readonly #truncated: boolean;
  #head: Buffer[] | null = null;
  #headBytes = 0;
  #headSeen = false;

  constructor(r: WarcRecordHead) {
    this.#block = this.#target(r, 'WARC-Block-Digest');
    this.#truncated = r.get('WARC-Truncated') !== null;
    if (r.type !== 'revisit') this.#payload = this.#target(r, 'WARC-Payload-Digest');
    this.#http = blockIsHttp(r);
    if (this.#payload && this.#http) this.#head = [];
  }

  /** True when there is nothing to compute (the block need not be read). */
  get idle(): boolean {
    return !this.#block && !this.#payload;
  }

  update(chunk: Buffer): void {
    this.#block?.hash.update(chunk);
    if (!this.#payload) return;
    if (!this.#head || this.#headSeen) {
      this.#updatePayload(chunk);
      return;
    }
    this.#head.push(chunk);
    this.#headBytes += chunk.length;
    const buffered = this.#head.length === 1 ? this.#head[0]! : Buffer.concat(this.#head);
    this.#head = [buffered];
    const head = parseHttpHead(buffered);
    if (head) {
      this.#headSeen = true;
      if (isChunked(head)) {
        const hash = hashFor(this.#payload.label)!;
        this.#dechunked = { hash, decoder: new ChunkedDecoder((b) => hash.update(b)), failed: false };
      }
      this.#updatePayload(buffered.subarray(head.headLength));
    } else if (this.#headBytes > MAX_HTTP_HEAD) {
      this.#problems.push({ level: 'warning', code: 'WARC_DIGEST_UNVERIFIED', message: `no HTTP head within ${MAX_HTTP_HEAD} bytes: WARC-Payload-Digest not checked` });
      this.#payload = null;
    }
  }

  /** Compare what was computed with the headers; call after the whole block went through update(). */
  finish(): FieldProblem[] {
    if (this.#block) this.#compare(this.#block, null, false);
    if (this.#payload && this.#head && !this.#headSeen) {
      // The block ended inside the HTTP head: take the head as ending there (empty payload).
      const buffered = this.#head[0] ?? Buffer.alloc(0);
      const head = parseHttpHead(buffered, { blockEnd: true });
      if (head) {
        this.#problems.push({ level: 'warning', code: 'WARC_BAD_HTTP', message: 'the HTTP head has no empty line before the end of the block' });
        this.#headSeen = true;
        this.#updatePayload(buffered.subarray(head.headLength));
      } else {
        this.#problems.push({ level: 'error', code: 'WARC_BAD_HTTP', message: 'the block does not start with an HTTP head: WARC-Payload-Digest not checked' });
        this.#payload = null;
      }
    }
    if (this.#payload) {
      // A WARC-Truncated record may end mid-chunk: its entity is what the stored prefix
      // de-chunks to. Bytes that are not chunked coding leave no entity to digest.
      const d = this.#dechunked;
      const whole = d !== null && !d.failed && (d.decoder.done || this.#truncated);
      this.#compare(this.#payload, whole ? d.hash : null, this.#truncated);
    }
    return this.#problems;
  }

  #updatePayload(chunk: Buffer): void {
    this.#payload!.hash.update(chunk);
    const d = this.#dechunked;
    if (!d || d.failed || d.decoder.done) return;
    try {
      d.decoder.write(chunk);
    } catch {
      d.failed = true; // not valid chunking after all: the raw digest decides
    }
  }

  #compare(t: Target, alternative: Hash | null, lenient: boolean): void {
    const computed = t.hash.digest();
    const chunked = t.field === 'WARC-Payload-Digest' && this.#dechunked !== null;
    if (digestEncodingOf(t.value, computed)) {
      if (chunked) this.chunkedConvention = 'transfer';
      return;
    }
    if (alternative && digestEncodingOf(t.value, alternative.digest())) {
      if (chunked) this.chunkedConvention = 'entity';
      return;
    }
    const what = t.field === 'WARC-Block-Digest' ? 'block' : 'payload';
    const notes: string[] = [];
    if (lenient) notes.push('record is WARC-Truncated');
    if (chunked && this.#dechunked!.failed) notes.push('the body is not valid chunked coding, so only a digest of the bytes as stored verifies');
    this.#problems.push({
      level: lenient ? 'warning' : 'error',
      code: t.field === 'WARC-Block-Digest' ? 'WARC_BLOCK_DIGEST_MISMATCH' : 'WARC_PAYLOAD_DIGEST_MISMATCH',
      message: `${what} digest failed: ${t.field} says ${t.value}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`,
    });
  }

  #target(r: WarcRecordHead, field: Target['field']): Target | null {
    const text = r.get(field);
    if (text === null) return null;
    const parsed = parseLabelledDigest(text);
    if (!parsed) return null; // reported by checkRecordFields
    const hash = hashFor(parsed.label);
    if (!hash) {
      this.#problems.push({ level: 'warning', code: 'WARC_DIGEST_UNVERIFIED', message: `${field} uses ${parsed.label}, which cannot be computed here` });
      return null;
    }
    return { field, label: parsed.label, value: parsed.value, hash };
  }
}
