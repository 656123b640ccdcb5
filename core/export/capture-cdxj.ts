/**
 * CDXJ lines straight from the capture index (no WARC is re-read): one line per response,
 * revisit, resource and metadata record (not warcinfo, request, or `application/warc-fields`
 * metadata, as pywb and cdxj-index.ts decide; nor a 206 partial whose whole 200 is there), pywb
 * style (see archive/cdxj.ts): numbers as strings, `warc/revisit` as a revisit's mime, the digest
 * without its `sha1:` label, a 304 revisit listed as the 200 it stands for.
 *
 * Rows are read in keyset pages of PAGE rows, so memory stays flat for any archive; the lines
 * come out in index order and are sorted by external-sort.ts.
 */
import type { Archive } from '../archive/archive-dir.ts';
import type { CdxjSourceRow } from '../archive/capture-scans.ts';
import { formatCdxj } from '../archive/cdxj.ts';
import { mediaType } from '../formats/media-type.ts';
import type { CdxjEntry } from '../archive/cdxj.ts';
import type { ExportWarc } from './archive-warcs.ts';

const PAGE = 2000;

/**
 * The status a server-not-modified revisit (a 304 archived as a revisit) is listed with: the 200
 * whose validators the conditional request carried, which it stands for. wabac.js (ReplayWeb.page)
 * serves a revisit listed with a 3xx status from its own headers, as a redirect's revisit, so a
 * 304 listed as 304 replayed as an empty 304; listed as 200 it is resolved through
 * WARC-Refers-To-Target-URI and -Date to the original's payload (test/e2e/replaywebpage-recrawl).
 */
const NOT_MODIFIED_STANDS_FOR = 200;

/** Count of rows the line generator will look at (an upper bound on its lines), for progress. */
export function countCaptureRows(archive: Archive): number {
  return archive.index.countCdxjRows();
}

/**
 * Unsorted CDXJ lines for every capture in `warcs` (records of other files are skipped), with
 * `filename` and `offset` relative to each WARC as exported. `onRow` is called per row read.
 */
export function* captureCdxjLines(archive: Archive, warcs: readonly ExportWarc[], onRow?: () => void): Generator<string> {
  const byFile = new Map(warcs.map((w) => [w.fileId, w]));
  let after = 0;
  for (;;) {
    const rows = archive.index.cdxjRows(after, PAGE);
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    for (const r of rows) {
      onRow?.();
      const w = byFile.get(r.fileId);
      if (!w || partialBesideWhole(archive, r, byFile)) continue;
      const e = cdxjEntry(r, w);
      if (e) yield formatCdxj(e);
    }
  }
}

/**
 * A 206 partial response of a URL whose whole 200 is exported too: left out of the index, kept in
 * the WARC. ReplayWeb.page indexes a 206 that starts at byte 0 as a capture of the URL and may
 * serve it, closer in time, for a request without Range, with the partial's own Content-Length
 * and Content-Range; a stream manifest it rewrites then no longer matches that length and the
 * player cannot read it (Chromium's own HLS player asks for the master with `Range: bytes=0-`,
 * and Trove keeps that 206 beside its whole fetch). The whole record answers every Range, as
 * Trove's replay prefers it (replay/choose-capture.ts).
 */
function partialBesideWhole(archive: Archive, r: CdxjSourceRow, exported: ReadonlyMap<number, unknown>): boolean {
  if (r.status !== 206 || r.recordType !== 'response' || !r.urlkey) return false;
  return archive.index.findCaptures(r.urlkey).some((x) => x.status === 200 && x.recordType === 'response' && x.targetUri === r.targetUri && exported.has(x.fileId));
}

export function cdxjEntry(r: CdxjSourceRow, w: Pick<ExportWarc, 'start' | 'name' | 'relocate'>): CdxjEntry | null {
  if (!r.targetUri || !r.urlkey || !r.ts || !(r.length > 0)) return null;
  const media = mediaType(r.mime);
  if ((r.recordType === 'metadata' || r.recordType === 'resource') && media === 'application/warc-fields') return null;
  const e: CdxjEntry = {
    urlkey: r.urlkey,
    timestamp: r.ts,
    url: r.targetUri,
    length: r.length,
    offset: w.relocate ? w.relocate(r.offset) : r.offset - w.start,
    filename: w.name,
  };
  const http = r.recordType === 'response' || r.recordType === 'revisit';
  if (r.recordType === 'revisit') e.mime = 'warc/revisit';
  else if (media) e.mime = media;
  else if (http) e.mime = 'unk';
  if (http && r.status !== null) e.status = String(r.recordType === 'revisit' && r.status === 304 ? NOT_MODIFIED_STANDS_FOR : r.status);
  if (r.payloadDigest) e.digest = r.payloadDigest.replace(/^sha-?1:/i, '');
  if (r.method && r.method.toUpperCase() !== 'GET') e.method = r.method.toUpperCase();
  return e;
}
