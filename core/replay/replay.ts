/**
 * Replay: URL + time → the archived response, as a browser should receive it. The desktop
 * app's protocol handler (answering every http/https request of the replay view) and the tests
 * call this one function. It reads only the capture index and the WARC files; a URL the archive
 * does not hold gets a "not archived" answer, never the live web.
 *
 * The body is read from the record (the original, for a revisit), de-chunked and
 * content-decoded for the browser; the stored bytes are never changed. A revisit is served with
 * its own HTTP headers and the original's body (the original's headers when the revisit has
 * none, or says 304 Not Modified).
 */
import type { Archive } from '../archive/archive-dir.ts';
import type { CaptureRow } from '../archive/capture-index.ts';
import { decodePayload, readStoredPayload } from '../archive/archive-payload.ts';
import { isChunked, type HttpHead } from '../formats/http-head.ts';
import { fieldValue, listFieldValue } from '../formats/http-fields.ts';
import { readRecordAt } from '../warc/read-records.ts';
import type { WarcRecord } from '../warc/read-records.ts';
import { chooseCapture } from './choose-capture.ts';
import type { Choice } from './choose-capture.ts';
import { jsonpCallback, renameJsonpCallback } from './fuzzy-match.ts';
import { archivedVariantsOnly, mediaPlaylistUrls } from './hls-archived-variants.ts';
import { archivedRepresentationsOnly } from './dash-archived-representations.ts';
import { streamKind } from '../formats/stream-kind.ts';
import { parseRange, replayHeaders } from './replay-headers.ts';
import type { CaptureRef, NearbyCapture, NotArchived, ReplayHead, ReplayRequest, ReplayResponse } from './replay-types.ts';

export type { CaptureRef, NotArchived, ReplayHead, ReplayRequest, ReplayResponse, ReplayResult } from './replay-types.ts';

/** Stored payload bytes read for one response, and decoded bytes handed out (generous: video). */
export const REPLAY_MAX_STORED = 256 << 20;
export const REPLAY_MAX_BODY = 256 << 20;

export async function replay(archive: Archive, req: ReplayRequest): Promise<ReplayResponse | NotArchived> {
  const { url, choice } = await choose(archive, req);
  return 'capture' in choice ? serve(archive, req, url, choice) : notArchived(req, url, choice.nearest);
}

/**
 * What `replay` would answer, without the body: the capture chosen, status and headers, from
 * the index and the records' WARC and HTTP heads only. The payload is never read or decoded, so
 * the answer costs the same for a 10 GB video as for a small page, and a record whose body is
 * damaged still gets one. `bodyBytes` is the size replay would serve when the stored body is
 * served as is; null when it is chunked or content-encoded (its decoded size is known only by
 * decoding it).
 */
export async function replayHead(archive: Archive, req: ReplayRequest): Promise<ReplayHead | NotArchived> {
  const { url, choice } = await choose(archive, req);
  if (!('capture' in choice)) return notArchived(req, url, choice.nearest);
  const { capture, payload } = choice;
  const payloadRecord = await readRecordAt(archive.resolveFile(payload), payload.offset, payload.length);
  const stored = await readStoredPayload(payloadRecord, 0);
  const head = await servedHead(archive, choice, stored.http);
  const bodyBytes = payload.recordType === 'revisit' ? 0 : servedSizeUndecoded(payloadRecord, stored.http, url, capture);
  const answer: ReplayHead = { kind: 'archived', ...statusAndHeaders(head, payloadRecord, bodyBytes), bodyBytes, capture: ref(capture) };
  if (payload.id !== capture.id) answer.payloadFrom = ref(payload);
  if (choice.fuzzy) answer.fuzzy = choice.fuzzy;
  return answer;
}

async function choose(archive: Archive, req: ReplayRequest) {
  const hash = req.url.indexOf('#');
  const url = hash < 0 ? req.url : req.url.slice(0, hash);
  return { url, choice: await chooseCapture(archive, url, req.at, req.method) };
}

function notArchived(req: ReplayRequest, url: string, nearest: NearbyCapture[]): NotArchived {
  return {
    kind: 'not-archived',
    url,
    ...(req.at !== undefined ? { at: req.at } : {}),
    ...(nearest.length > 0 ? { nearest } : {}),
  };
}

/**
 * The decoded body's size when it can be known without reading it: the stored payload is served
 * as is when it is neither chunked nor content-encoded (and a JSONP callback is not renamed),
 * up to the replay caps. Null otherwise.
 */
function servedSizeUndecoded(record: WarcRecord, http: HttpHead | null, url: string, capture: CaptureRow): number | null {
  if (http && isChunked(http)) return null;
  const encoding = http ? listFieldValue(http.headers, 'content-encoding')?.trim().toLowerCase() : undefined;
  if (encoding && encoding !== 'identity') return null;
  const wanted = jsonpCallback(url);
  const archived = jsonpCallback(capture.targetUri ?? '');
  if (wanted && archived && wanted !== archived) return null;
  const stored = Math.max(0, record.contentLength - (http?.headLength ?? 0));
  return Math.min(stored, REPLAY_MAX_STORED, REPLAY_MAX_BODY);
}

function ref(row: CaptureRow): CaptureRef {
  return { url: row.targetUri ?? '', ts: row.ts ?? '', recordId: row.recordId ?? '', file: row.filePath, offset: row.offset, id: row.id };
}

async function serve(archive: Archive, req: ReplayRequest, url: string, choice: Choice): Promise<ReplayResponse> {
  const { capture, payload } = choice;
  const payloadRecord = await readRecordAt(archive.resolveFile(payload), payload.offset, payload.length);
  // An unresolved revisit (only as a redirect fallback) has no body to give.
  const stored =
    payload.recordType === 'revisit'
      ? { ...(await readStoredPayload(payloadRecord, 0)), stored: Buffer.alloc(0), cut: false }
      : await readStoredPayload(payloadRecord, REPLAY_MAX_STORED);

  const head = await servedHead(archive, choice, stored.http);

  // The body is decoded as the stored bytes were encoded: by the payload record's own head.
  const decoded = decodePayload(stored.stored, stored.http, REPLAY_MAX_BODY, stored.cut);
  let body = decoded.body;
  const wantedCallback = jsonpCallback(url);
  const archivedCallback = jsonpCallback(capture.targetUri ?? '');
  if (wantedCallback && archivedCallback) body = renameJsonpCallback(body, archivedCallback, wantedCallback);
  if (head?.kind === 'response' && head.status === 200) body = (await steeredManifest(archive, head, body, url, req.at)) ?? body;

  const response: ReplayResponse = {
    kind: 'archived',
    ...statusAndHeaders(head, payloadRecord, body.length),
    body,
    capture: ref(capture),
  };
  if (payload.id !== capture.id) response.payloadFrom = ref(payload);
  if (choice.fuzzy) response.fuzzy = choice.fuzzy;
  if (decoded.truncated) response.truncated = true;
  applyRange(response, req);
  if ((req.method ?? 'GET').toUpperCase() === 'HEAD') response.body = Buffer.alloc(0);
  return response;
}

/**
 * A stream manifest steered to what the archive can play: an HLS master playlist to its archived
 * variants (hls-archived-variants.ts), a DASH manifest to its archived Representations
 * (dash-archived-representations.ts). Null for any other body, or one served as stored.
 */
async function steeredManifest(archive: Archive, head: HttpHead, body: Buffer, url: string, at: string | undefined): Promise<Buffer | null> {
  const kind = streamKind(url, fieldValue(head.headers, 'content-type')?.split(';')[0]!.trim() ?? null);
  if (kind === 'hls') return archivedVariantsOnly(body, url, (variant) => playableVariant(archive, variant, at));
  if (kind === 'dash') return archivedRepresentationsOnly(body, url, (urls) => allArchived(archive, urls, at));
  return null;
}

/** An HLS variant whose media playlist and every part it names are archived. */
async function playableVariant(archive: Archive, url: string, at: string | undefined): Promise<boolean> {
  const playlist = await replay(archive, { url, ...(at !== undefined ? { at } : {}) });
  if (playlist.kind !== 'archived' || playlist.status !== 200 || playlist.fuzzy) return false;
  const parts = mediaPlaylistUrls(playlist.body, url);
  return parts.length > 0 && allArchived(archive, parts, at);
}

/** URLs of one rendition looked up at most: a long stream's are sampled evenly, first and last among them. */
const MAX_PARTS_CHECKED = 64;

/**
 * Every URL has an exact capture (not fuzzy) that is a 200 or a 206. A capture takes a rendition
 * whole or not at all (a limit or a failure leaves gaps), so for a long stream an even sample
 * (first and last included) answers without an index lookup per segment of a two-hour video.
 */
async function allArchived(archive: Archive, urls: string[], at: string | undefined): Promise<boolean> {
  const step = Math.max(1, (urls.length - 1) / (MAX_PARTS_CHECKED - 1));
  const sample = urls.length <= MAX_PARTS_CHECKED ? urls : [...new Set(Array.from({ length: MAX_PARTS_CHECKED }, (_, i) => urls[Math.round(i * step)]!))];
  for (const part of sample) {
    const c = await chooseCapture(archive, part, at);
    if (!('capture' in c) || c.fuzzy || (c.capture.status !== 200 && c.capture.status !== 206)) return false;
  }
  return true;
}

/**
 * The HTTP head replay answers with: a revisit's own response head (its status and headers are
 * the capture's), unless it has none or says 304 Not Modified; else the payload record's head.
 */
async function servedHead(archive: Archive, choice: Choice, payloadHead: HttpHead | null): Promise<HttpHead | null> {
  const { capture, payload } = choice;
  if (capture.id === payload.id) return payloadHead;
  const revisit = await readStoredPayload(await readRecordAt(archive.resolveFile(capture), capture.offset, capture.length), 0);
  return revisit.http?.kind === 'response' && revisit.http.status !== 304 ? revisit.http : payloadHead;
}

function statusAndHeaders(head: HttpHead | null, payloadRecord: WarcRecord, bodyLength: number | null): { status: number; statusText: string; headers: [string, string][] } {
  if (head?.kind === 'response') {
    return { status: head.status ?? 200, statusText: head.statusText ?? '', headers: replayHeaders(head.headers, bodyLength) };
  }
  // A resource record (or a response with no HTTP head): the block is the body.
  return { status: 200, statusText: 'OK', headers: replayHeaders([['Content-Type', payloadRecord.get('Content-Type') ?? 'application/octet-stream']], bodyLength) };
}

/** Honour a single `Range: bytes=` on a 200 (media elements seek with ranges). */
function applyRange(res: ReplayResponse, req: ReplayRequest): void {
  if (res.status !== 200) return;
  const size = res.body.length;
  const range = parseRange(fieldValue(req.headers, 'range'), size);
  if (range === null) return;
  const others = res.headers.filter(([k]) => k.toLowerCase() !== 'content-length');
  if (range === 'unsatisfiable') {
    res.status = 416;
    res.statusText = 'Range Not Satisfiable';
    res.body = Buffer.alloc(0);
    res.headers = [...others, ['Content-Range', `bytes */${size}`], ['Content-Length', '0']];
    return;
  }
  res.status = 206;
  res.statusText = 'Partial Content';
  res.body = res.body.subarray(range.start, range.end + 1);
  res.headers = [...others, ['Content-Range', `bytes ${range.start}-${range.end}/${size}`], ['Content-Length', String(res.body.length)]];
}
