/**
 * Replay as a browser host needs it (kept in the replay room so `trove qa`, below the app, answers
 * its Chromium tabs exactly as the app does; core/app/replay-bridge.ts re-exports it). Both the Electron protocol handler (the replay view's
 * http/https requests) and the e2e harness (Chromium requests paused over CDP) call
 * `replayResponse`, which answers every request from the archive through the core `replay()` —
 * a miss is the core's "not archived" page, never the live web. `replayInfo` is what the replay
 * banner shows. Every answer carries the replay policy (core/replay/replay-policy.ts): our CSP,
 * the guard script in HTML, and a refusal of service worker scripts.
 */
import type { ReplayCapture, ReplayInfo } from '../api/app-types.ts';
import type { Archive } from '../archive/archive-dir.ts';
import { fieldValue, redirectLocation } from '../formats/http-fields.ts';
import { replay, replayHead, type NotArchived, type ReplayHead, type ReplayResponse } from './replay.ts';
import { notArchivedPage } from './not-archived-page.ts';
import { applyReplayPolicy, isServiceWorkerScript, REPLAY_CSP } from './replay-policy.ts';

export interface ReplayHttpRequest {
  url: string;
  at?: string;
  method?: string;
  headers?: [string, string][];
}

export interface ReplayHttpResponse {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Buffer;
  info: ReplayInfo;
}

/** Methods replay can answer; anything else gets 405 (archives hold GETs, and POSTs by key). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'OPTIONS']);

function captureOf(r: ReplayResponse | ReplayHead): ReplayCapture {
  return { id: r.capture.id, url: r.capture.url, ts: r.capture.ts, type: r.payloadFrom ? 'revisit' : 'response', fuzzy: r.fuzzy ?? null };
}

function infoOf(url: string, r: ReplayResponse | ReplayHead | NotArchived): ReplayInfo {
  if (r.kind === 'not-archived') {
    return { kind: 'not-archived', url, reason: 'this URL is not in the archive', nearest: r.nearest ?? [] };
  }
  const location = redirectLocation(r.status, r.headers, url);
  return {
    kind: 'archived',
    url,
    status: r.status,
    statusText: r.statusText,
    mime: fieldValue(r.headers, 'content-type'),
    headers: r.headers,
    bodyBytes: 'body' in r ? Number(fieldValue(r.headers, 'content-length') ?? r.body.length) : r.bodyBytes,
    capture: captureOf(r),
    location: location.absolute ?? location.raw,
  };
}

/**
 * What the replay banner shows for `url` at `at`, asked on every navigation of the replay view:
 * from the index and the records' heads only (replayHead), never by reading and decoding a body.
 */
export async function replayInfo(archive: Archive, url: string, at?: string): Promise<ReplayInfo> {
  const r = await replayHead(archive, { url, ...(at ? { at } : {}), method: 'HEAD' });
  return infoOf(url, r);
}

/** The response a replay view's request gets: archived, or the not-archived page. */
export async function replayResponse(archive: Archive, req: ReplayHttpRequest): Promise<ReplayHttpResponse> {
  const method = (req.method ?? 'GET').toUpperCase();
  if (!METHODS.has(method)) {
    return {
      status: 405,
      statusText: 'Method Not Allowed',
      headers: [['Content-Type', 'text/plain; charset=utf-8']],
      body: Buffer.from(`Replay cannot answer ${method} requests.\n`),
      info: { kind: 'not-archived', url: req.url, reason: `method ${method}`, nearest: [] },
    };
  }
  if (isServiceWorkerScript(req.headers)) {
    return {
      status: 403,
      statusText: 'Forbidden',
      headers: [['Content-Type', 'text/plain; charset=utf-8'], ['Content-Security-Policy', REPLAY_CSP]],
      body: Buffer.from('Service workers are not available in replay.\n'),
      info: { kind: 'not-archived', url: req.url, reason: 'service worker script', nearest: [] },
    };
  }
  const r = await replay(archive, { url: req.url, ...(req.at ? { at: req.at } : {}), method, ...(req.headers ? { headers: req.headers } : {}) });
  const info = infoOf(req.url, r);
  if (r.kind === 'not-archived') {
    const page = notArchivedPage(r);
    return { status: page.status, statusText: page.statusText, headers: page.headers, body: page.body, info };
  }
  const out = applyReplayPolicy(r.headers, r.body, { method, status: r.status });
  return { status: r.status, statusText: r.statusText, headers: out.headers, body: out.body, info };
}
