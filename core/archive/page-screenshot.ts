/**
 * A page's screenshot, for the pages list's thumbnails and the crawl monitor: the `resource`
 * record `urn:view:<page URL>` a browser capture writes beside the page (page-resource-records.ts,
 * Browsertrix Crawler's name), found through the index by target URI and read with one positioned
 * read. Handed to the renderer as a `data:` URL: the renderer is sandboxed with no network of its
 * own, and its CSP already allows `data:` images, so no protocol or origin is opened for it.
 */
import { TroveError } from '../errors.ts';
import { timestampSeconds } from './capture-timestamp.ts';
import { recordIdSql } from './record-id-key.ts';
import { recordTypeCode } from './record-type-key.ts';
import { tsSql } from './capture-ts-key.ts';
import { readRecordAt } from '../warc/read-records.ts';
import { databaseOf } from './archive-dir.ts';
import type { Archive } from './archive-dir.ts';
import { readStoredPayload } from './archive-payload.ts';
import { mediaType } from '../formats/media-type.ts';
import { SCREENSHOT_URN_PREFIX } from '../formats/page-resource-urns.ts';
import type { PageScreenshot } from '../api/archive-types.ts';

/** Screenshots larger than this are not handed out (a viewport PNG is a few hundred KB). */
export const SCREENSHOT_MAX_BYTES = 8 << 20;
/** Screenshots of one URL looked at when choosing the nearest in time (a URL is rarely shot more). */
const CANDIDATES = 200;

interface ShotRow {
  id: number;
  file_path: string;
  offset: number;
  length: number;
  target_uri: string;
  ts: string | null;
  mime: string | null;
  concurrent_to: string | null;
}

// The code of `resource`, spelled out so SQLite can use records_target_uri (a partial index on it).
const RESOURCE = recordTypeCode('resource');

const SELECT_SHOT = `SELECT r.id, f.path AS file_path, r.offset, r.length, r.target_uri, ${tsSql('r.ts')} AS ts, r.mime, r.concurrent_to
  FROM records r JOIN warc_files f ON f.id = r.file_id`;

/**
 * The screenshot of the page a record holds (by index id): the one written with it
 * (WARC-Concurrent-To its record), else the `urn:view:` record of its URL nearest in time (an
 * imported Browsertrix archive ties them the same way, but a WARC need not). Null when none.
 */
export async function pageScreenshot(archive: Archive, pageId: number): Promise<PageScreenshot | null> {
  const row = findPageScreenshot(archive, pageId);
  return row ? readScreenshot(archive, row) : null;
}

/** The newest screenshot in the archive (the monitor's "last captured page"), or null. */
export async function latestScreenshot(archive: Archive): Promise<PageScreenshot | null> {
  // A range on target_uri (indexed): every `urn:view:` URI sorts between the prefix and the prefix with its last character bumped.
  const end = SCREENSHOT_URN_PREFIX.slice(0, -1) + String.fromCharCode(SCREENSHOT_URN_PREFIX.charCodeAt(SCREENSHOT_URN_PREFIX.length - 1) + 1);
  const row = databaseOf(archive)
    .prepare(`${SELECT_SHOT} WHERE r.target_uri >= ? AND r.target_uri < ? AND r.record_type = ${RESOURCE} ORDER BY r.id DESC LIMIT 1`)
    .get(SCREENSHOT_URN_PREFIX, end) as ShotRow | undefined;
  return row ? readScreenshot(archive, row) : null;
}

/**
 * The bytes of a `resource` record a browser capture wrote beside the page a record holds, by the
 * prefix of its target URI (`urn:view:` screenshot, `urn:text:` text), chosen as `pageScreenshot`
 * chooses; null when there is none or it is larger than `maxBytes`. QA reads its capture-time
 * reference with it.
 */
export async function pageResourceBytes(archive: Archive, pageId: number, prefix: string, maxBytes = SCREENSHOT_MAX_BYTES): Promise<Buffer | null> {
  const row = findPageScreenshot(archive, pageId, prefix);
  if (!row) return null;
  const record = await readRecordAt(archive.resolveFile({ path: row.file_path }), row.offset, row.length);
  const { stored, cut } = await readStoredPayload(record, maxBytes);
  return cut ? null : stored;
}

function findPageScreenshot(archive: Archive, pageId: number, prefix = SCREENSHOT_URN_PREFIX): ShotRow | null {
  const db = databaseOf(archive);
  const page = db.prepare(`SELECT target_uri, ${tsSql('ts')} AS ts, ${recordIdSql('record_id')} AS record_id FROM records WHERE id = ?`).get(pageId) as
    | { target_uri: string | null; ts: string | null; record_id: string | null }
    | undefined;
  if (!page) throw new TroveError('QUERY_NO_RECORD', `no record with id ${pageId} in this archive`, { id: pageId });
  if (!page.target_uri) return null;
  // INDEXED BY: with the type stored as a code (a column without affinity) SQLite no longer counts
  // the partial index's `record_type = 4` as covered, rates it no better than records_type, and
  // would walk every resource row; the URL is the selective key.
  const shots = db
    .prepare(`${SELECT_SHOT.replace('FROM records r', 'FROM records r INDEXED BY records_target_uri')} WHERE r.target_uri = ? AND r.record_type = ${RESOURCE} ORDER BY r.id LIMIT ?`)
    .all(prefix + page.target_uri, CANDIDATES) as ShotRow[];
  if (shots.length === 0) return null;
  const tied = page.record_id ? shots.find((s) => s.concurrent_to === page.record_id) : undefined;
  if (tied) return tied;
  if (!page.ts) return shots[shots.length - 1]!;
  const t = timestampSeconds(page.ts);
  const away = (s: ShotRow) => (s.ts ? Math.abs(timestampSeconds(s.ts) - t) : Infinity);
  return shots.reduce((best, s) => (away(s) <= away(best) ? s : best));
}

async function readScreenshot(archive: Archive, row: ShotRow): Promise<PageScreenshot | null> {
  const type = mediaType(row.mime) ?? 'image/png';
  if (!type.startsWith('image/') || type === 'image/svg+xml') return null;
  const record = await readRecordAt(archive.resolveFile({ path: row.file_path }), row.offset, row.length);
  const { stored, cut } = await readStoredPayload(record, SCREENSHOT_MAX_BYTES);
  if (cut || stored.length === 0) return null;
  return {
    recordId: row.id,
    url: row.target_uri.slice(SCREENSHOT_URN_PREFIX.length),
    ts: row.ts ?? '',
    mime: type,
    bytes: stored.length,
    dataUrl: `data:${type};base64,${stored.toString('base64')}`,
  };
}
