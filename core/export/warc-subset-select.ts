/**
 * Which records a WARC subset holds: the captures (response, revisit, resource) a filter picks,
 * each with its request and metadata records (those whose WARC-Concurrent-To names the capture,
 * or the one the capture names).
 *
 * The capture index has no index on `concurrent_to`, so siblings are looked for among the
 * NEIGHBOURS records on each side of the capture in the same file (by offset, over the
 * (file_id, offset) index): every writer we know puts a fetch's records together (Heritrix and
 * Trove: response, request, metadata; warcio and wget: request, response). A sibling written
 * further away than that is not found. Captures are read in keyset pages, so memory is flat.
 */
import type { Archive } from '../archive/archive-dir.ts';
import type { CaptureDbRow } from '../archive/capture-statements.ts';
import { RecordSubset } from '../archive/record-subset.ts';
import type { RecordFilter } from '../api/archive-types.ts';
import { TroveError } from '../errors.ts';

export interface WarcSubsetFilter {
  /** URLs starting with this one (SURT prefix, so http/https and `www.` alike). */
  urlPrefix?: string;
  /** This host (any scheme or port). */
  host?: string;
  /** 14-digit timestamps (shorter prefixes allowed), inclusive. */
  from?: string;
  to?: string;
  /** A MIME type (`text/html`) or a family ending in `/` (`image/`). */
  mime?: string;
}

export const CAPTURE_TYPES = ['response', 'revisit', 'resource'];
const SIBLING_TYPES = new Set(['request', 'metadata']);
const NEIGHBOURS = 8;
const PAGE = 500;

export type RecordDbRow = CaptureDbRow;

export class SubsetSelection {
  readonly #records: RecordSubset;

  constructor(archive: Archive, filter: WarcSubsetFilter) {
    for (const k of ['from', 'to'] as const) {
      const v = filter[k];
      if (v !== undefined && !/^\d{4,14}$/.test(v)) {
        throw new TroveError('EXPORT_BAD_FILTER', `--${k} must be a timestamp of 4 to 14 digits (YYYYMMDDhhmmss), not ${v}`, { [k]: v });
      }
    }
    const f: RecordFilter = { type: CAPTURE_TYPES };
    if (filter.urlPrefix) f.urlPrefix = filter.urlPrefix;
    if (filter.host) f.host = filter.host;
    if (filter.from) f.from = filter.from;
    if (filter.to) f.to = filter.to;
    if (filter.mime) f.mime = filter.mime;
    this.#records = new RecordSubset(archive, f);
  }

  count(): number {
    return this.#records.count();
  }

  /** Is this record (by records.id) one of the captures the filter picks? */
  includes(id: number): boolean {
    return this.#records.includes(id);
  }

  /** The chosen captures, oldest row first. */
  *captures(): Generator<RecordDbRow> {
    let after = 0;
    for (;;) {
      const rows = this.#records.page(after, PAGE);
      if (rows.length === 0) return;
      after = rows.at(-1)!.id;
      yield* rows;
    }
  }

  /** The capture and its request/metadata records, in file order. */
  group(capture: RecordDbRow): RecordDbRow[] {
    const { before, after } = this.#records.neighbours(capture.file_id, capture.offset, NEIGHBOURS);
    const near = [...before, ...after];
    const siblings = near.filter(
      (r) =>
        SIBLING_TYPES.has(r.record_type) &&
        ((capture.record_id !== null && r.concurrent_to === capture.record_id) || (capture.concurrent_to !== null && r.record_id === capture.concurrent_to)),
    );
    return [capture, ...siblings].sort((a, b) => a.offset - b.offset);
  }
}
