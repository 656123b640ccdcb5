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
import type { HttpHead } from '../formats/http-head.ts';
import { readRecordAt } from '../warc/read-records.ts';
import { chooseCapture } from './choose-capture.ts';
import type { Choice } from './choose-capture.ts';
import { jsonpCallback, renameJsonpCallback } from './fuzzy-match.ts';
import { fieldValue } from '../formats/http-fields.ts';
import { parseRange, replayHeaders } from './replay-headers.ts';
import type { CaptureRef, NotArchived, ReplayRequest, ReplayResponse } from './replay-types.ts';

export type { CaptureRef, NotArchived, ReplayRequest, ReplayResponse, ReplayResult } from './replay-types.ts';

/** Stored payload bytes read for one response, and decoded bytes handed out (generous: video). */
export const REPLAY_MAX_STORED = 256 << 20;
export const REPLAY_MAX_BODY = 256 << 20;

export async function replay(archive: Archive, req: ReplayRequest): Promise<ReplayResponse | NotArchived> {
  const hash = req.url.indexOf('#');
  const url = hash < 0 ? req.url : req.url.slice(0, hash);
  const choice = await chooseCapture(archive, url, req.at, req.method);
  if (!('capture' in choice)) {
    return {
      kind: 'not-archived',
      url,
      ...(req.at !== undefined ? { at: req.at } : {}),
      ...(choice.nearest.length > 0 ? { nearest: choice.nearest } : {}),
    };
  }
  return serve(archive, req, url, choice);
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

  let head: HttpHead | null = stored.http;
  if (capture.id !== payload.id) {
    const revisit = await readStoredPayload(await readRecordAt(archive.resolveFile(capture), capture.offset, capture.length), 0);
    if (revisit.http?.kind === 'response' && revisit.http.status !== 304) head = revisit.http;
  }

  // The body is decoded as the stored bytes were encoded: by the payload record's own head.
  const decoded = decodePayload(stored.stored, stored.http, REPLAY_MAX_BODY, stored.cut);
  let body = decoded.body;
  const wantedCallback = jsonpCallback(url);
  const archivedCallback = jsonpCallback(capture.targetUri ?? '');
  if (wantedCallback && archivedCallback) body = renameJsonpCallback(body, archivedCallback, wantedCallback);

  let status = 200;
  let statusText = 'OK';
  let archived: [string, string][];
  if (head?.kind === 'response') {
    status = head.status ?? 200;
    statusText = head.statusText ?? '';
    archived = head.headers;
  } else {
    // A resource record (or a response with no HTTP head): the block is the body.
    archived = [['Content-Type', payloadRecord.get('Content-Type') ?? 'application/octet-stream']];
  }

  const response: ReplayResponse = {
    kind: 'archived',
    status,
    statusText,
    headers: replayHeaders(archived, body.length),
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
