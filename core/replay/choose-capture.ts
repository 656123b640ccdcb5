/**
 * Which capture answers (url, time), following docs/FORMATS.md "Replay resolution":
 *
 * 1. Captures with the URL's exact SURT key (which already ignores http/https and `www.`),
 *    closest in time first (latest first when no time is given); a whole 200 before a 206
 *    partial response of the same URL. A capture is skipped when it
 *    is a revisit whose original the archive does not hold, or a redirect to its own URL (an
 *    http → https redirect, say), so the loop a browser would fall into never starts.
 * 2. No usable exact capture: fuzzy candidates sharing the URL up to `?` (fuzzy-match.ts).
 * 3. Nothing: the caller answers "not archived", never the live web.
 */
import type { Archive } from '../archive/archive-dir.ts';
import type { CaptureRow } from '../archive/capture-index.ts';
import type { FuzzyCandidate } from '../archive/capture-scans.ts';
import { resolveRevisitInChain } from '../archive/archive-revisit.ts';
import { readStoredPayload } from '../archive/archive-payload.ts';
import { padTimestamp, timestampSeconds } from '../archive/capture-timestamp.ts';
import { prefixEnd, surtHost } from '../archive/record-query-sql.ts';
import { surtKey } from '../scope/surt.ts';
import { fieldValue } from '../formats/http-fields.ts';
import { readRecordAt } from '../warc/read-records.ts';
import { isStaticFile, meaningfulParams, paramSimilarity, withoutQuery } from './fuzzy-match.ts';
import type { NearbyCapture } from './replay-types.ts';

export interface Choice {
  /** The capture matched. */
  capture: CaptureRow;
  /** The record holding the body: the capture itself, or a revisit's original. */
  payload: CaptureRow;
  fuzzy?: string;
}

export interface NoChoice {
  nearest: NearbyCapture[];
}

/** Candidates looked at before giving up on a key (each may cost a record read). */
const MAX_CHECKS = 32;
const MAX_FUZZY_CANDIDATES = 2000;

interface Target {
  url: string;
  key: string;
  /** Seconds of the wanted time, or null for "latest". */
  at: number | null;
  method: string;
}

export async function chooseCapture(archive: Archive, url: string, at: string | undefined, method = 'GET'): Promise<Choice | NoChoice> {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const t: Target = {
    url,
    key: surtKey(url, m !== 'GET' ? { method: m } : {}),
    at: at === undefined ? null : timestampSeconds(padTimestamp(at)),
    method: m,
  };
  const exact = await chooseExact(archive, t, at === undefined ? undefined : padTimestamp(at));
  if (exact) return withSchemeNote(await preferWhole(archive, t, exact), url);
  const fuzzy = await chooseFuzzy(archive, t);
  if ('capture' in fuzzy) return withSchemeNote(fuzzy, url);
  return fuzzy;
}

function withSchemeNote(c: Choice, url: string): Choice {
  const want = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  const got = /^([a-z][a-z0-9+.-]*):/i.exec(c.capture.targetUri ?? '')?.[1]?.toLowerCase();
  if (!c.fuzzy && want && got && want !== got) c.fuzzy = `scheme: served the ${got}:// capture for an ${want}:// URL`;
  return c;
}

function distance(t: Target, row: { ts: string | null }): number {
  if (!row.ts) return Number.MAX_SAFE_INTEGER;
  const s = timestampSeconds(row.ts);
  // Latest first when no time was asked for; later wins ties, as the capture index does.
  return t.at === null ? -s : Math.abs(s - t.at) * 2 - (s >= t.at ? 1 : 0);
}

type Verdict = { ok: true; payload: CaptureRow } | { ok: false; selfRedirectTo?: string };

/** Can this capture be served? Revisits need their original; self-redirects are skipped. */
async function check(archive: Archive, t: Target, row: CaptureRow): Promise<Verdict> {
  let payload = row;
  if (row.recordType === 'revisit') {
    const original = resolveRevisitInChain(archive, row);
    if (!original) return { ok: false };
    payload = original;
  }
  const status = row.status ?? payload.status;
  if (status !== null && status >= 300 && status < 400) {
    const location = await redirectTarget(archive, row);
    if (location !== null && surtKey(location, t.method !== 'GET' ? { method: t.method } : {}) === t.key) return { ok: false, selfRedirectTo: location };
  }
  return { ok: true, payload };
}

/** The absolute Location of a redirect capture, or null. */
async function redirectTarget(archive: Archive, row: CaptureRow): Promise<string | null> {
  const record = await readRecordAt(archive.resolveFile(row), row.offset, row.length);
  const { http } = await readStoredPayload(record, 0);
  const location = http ? fieldValue(http.headers, 'location') : null;
  if (!location) return null;
  try {
    return new URL(location, row.targetUri ?? undefined).href;
  } catch {
    return null;
  }
}

async function chooseExact(archive: Archive, t: Target, at: string | undefined): Promise<Choice | null> {
  const first = archive.index.closest(t.key, at);
  if (!first) return null;
  const v = await check(archive, t, first);
  if (v.ok) return { capture: first, payload: v.payload };
  let fallback: Choice | null = null;
  const consider = (row: CaptureRow, verdict: Verdict): void => {
    // A redirect to the same key that is not literally to the URL asked for (http → https)
    // is better than nothing: the browser follows it and asks again for the other URL.
    if (!fallback && !verdict.ok && verdict.selfRedirectTo !== undefined && verdict.selfRedirectTo !== t.url) {
      fallback = { capture: row, payload: row, fuzzy: 'only redirects to itself were archived' };
    }
  };
  consider(first, v);
  const rest = archive.index
    .findCaptures(t.key)
    .filter((r) => r.id !== first.id)
    .sort((a, b) => distance(t, a) - distance(t, b));
  for (const row of rest.slice(0, MAX_CHECKS)) {
    const verdict = await check(archive, t, row);
    if (verdict.ok) return { capture: row, payload: verdict.payload };
    consider(row, verdict);
  }
  return fallback;
}

/**
 * A 206 partial capture (what a browser's Range requests of a video leave) gives way to a whole
 * 200 capture of the same URL, nearest in time, when the archive holds one (Trove fetches media
 * whole beside a browser page: core/browser/media-completer.ts): replay answers any Range from the
 * whole body (replay.ts), where the partial record holds only the bytes one request asked for.
 */
async function preferWhole(archive: Archive, t: Target, c: Choice): Promise<Choice> {
  if ((c.capture.status ?? c.payload.status) !== 206) return c;
  const whole = archive.index
    .findCaptures(t.key)
    .filter((r) => r.status === 200)
    .sort((a, b) => distance(t, a) - distance(t, b));
  for (const row of whole.slice(0, MAX_CHECKS)) {
    const v = await check(archive, t, row);
    if (v.ok) return { capture: row, payload: v.payload };
  }
  return c;
}

async function chooseFuzzy(archive: Archive, t: Target): Promise<Choice | NoChoice> {
  const baseKey = surtKey(withoutQuery(t.url));
  const post = t.method !== 'GET';
  const rows = archive.index.fuzzyCandidates(baseKey, MAX_FUZZY_CANDIDATES).filter(
    (r) => r.urlkey !== t.key && r.urlkey.includes('__wb_method=') === post,
  );
  const staticFile = isStaticFile(t.url);
  const wanted = meaningfulParams(t.url);
  const scored = rows
    .map((r) => ({ r, score: staticFile ? 1 : paramSimilarity(wanted, meaningfulParams(r.url ?? '')) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || distance(t, a.r) - distance(t, b.r));
  for (const { r, score } of scored.slice(0, MAX_CHECKS)) {
    const row = archive.index.byId(r.id);
    if (!row) continue;
    const v = await check(archive, t, row);
    if (!v.ok) continue;
    const how = staticFile
      ? 'query ignored for a static file'
      : score === 1
        ? 'cache-busting parameters ignored'
        : `closest query match (similarity ${score.toFixed(2)})`;
    return { capture: row, payload: v.payload, fuzzy: post ? `${t.method} matched by URL only (request body not compared); ${how}` : how };
  }
  return { nearest: nearby(archive, t, rows) };
}

/** A few captures to suggest on the "not archived" page. */
function nearby(archive: Archive, t: Target, rows: FuzzyCandidate[]): NearbyCapture[] {
  const out: NearbyCapture[] = [];
  for (const r of [...rows].sort((a, b) => distance(t, a) - distance(t, b))) {
    if (out.length >= 5) break;
    if (r.url && r.ts) out.push({ url: r.url, ts: r.ts });
  }
  if (out.length > 0) return out;
  let host: string;
  try {
    host = new URL(t.url).host;
  } catch {
    return out;
  }
  const h = `${surtHost(host)})`;
  for (const r of archive.index.pagesInKeyRange(h, prefixEnd(h), 5)) {
    if (r.url && r.ts) out.push({ url: r.url, ts: r.ts });
  }
  return out;
}
