/**
 * CDXJ lines straight from the capture index (no WARC is re-read): one line per response,
 * revisit, resource and metadata record (not warcinfo, request, or `application/warc-fields`
 * metadata, as pywb and cdxj-index.ts decide), pywb style (see archive/cdxj.ts): numbers as
 * strings, `warc/revisit` as a revisit's mime, the digest without its `sha1:` label.
 *
 * Rows are read in keyset pages of PAGE rows, so memory stays flat for any archive; the lines
 * come out in index order and are sorted by external-sort.ts.
 */
import type { Archive } from '../archive/archive-dir.ts';
import { formatCdxj } from '../archive/cdxj.ts';
import { mediaType } from '../formats/media-type.ts';
import type { CdxjEntry } from '../archive/cdxj.ts';
import type { ExportWarc } from './archive-warcs.ts';

const PAGE = 2000;

interface Row {
  id: number;
  file_id: number;
  offset: number;
  length: number;
  record_type: string;
  target_uri: string | null;
  urlkey: string | null;
  ts: string | null;
  mime: string | null;
  status: number | null;
  payload_digest: string | null;
  method: string | null;
}

const SQL = `SELECT id, file_id, offset, length, record_type, target_uri, urlkey, ts, mime, status, payload_digest, method
  FROM records WHERE id > ? AND record_type IN ('response', 'revisit', 'resource', 'metadata') ORDER BY id LIMIT ?`;

/** Count of rows the line generator will look at (an upper bound on its lines), for progress. */
export function countCaptureRows(archive: Archive): number {
  return (archive.db.prepare(`SELECT COUNT(*) AS n FROM records WHERE record_type IN ('response', 'revisit', 'resource', 'metadata')`).get() as { n: number }).n;
}

/**
 * Unsorted CDXJ lines for every capture in `warcs` (records of other files are skipped), with
 * `filename` and `offset` relative to each WARC as exported. `onRow` is called per row read.
 */
export function* captureCdxjLines(archive: Archive, warcs: readonly ExportWarc[], onRow?: () => void): Generator<string> {
  const byFile = new Map(warcs.map((w) => [w.fileId, w]));
  const stmt = archive.db.prepare<[number, number], Row>(SQL);
  let after = 0;
  for (;;) {
    const rows = stmt.all(after, PAGE);
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    for (const r of rows) {
      onRow?.();
      const w = byFile.get(r.file_id);
      if (!w) continue;
      const e = cdxjEntry(r, w);
      if (e) yield formatCdxj(e);
    }
  }
}

function cdxjEntry(r: Row, w: ExportWarc): CdxjEntry | null {
  if (!r.target_uri || !r.urlkey || !r.ts || !(r.length > 0)) return null;
  const media = mediaType(r.mime);
  if ((r.record_type === 'metadata' || r.record_type === 'resource') && media === 'application/warc-fields') return null;
  const e: CdxjEntry = {
    urlkey: r.urlkey,
    timestamp: r.ts,
    url: r.target_uri,
    length: r.length,
    offset: r.offset - w.start,
    filename: w.name,
  };
  const http = r.record_type === 'response' || r.record_type === 'revisit';
  if (r.record_type === 'revisit') e.mime = 'warc/revisit';
  else if (media) e.mime = media;
  else if (http) e.mime = 'unk';
  if (http && r.status !== null) e.status = String(r.status);
  if (r.payload_digest) e.digest = r.payload_digest.replace(/^sha-?1:/i, '');
  if (r.method && r.method.toUpperCase() !== 'GET') e.method = r.method.toUpperCase();
  return e;
}
