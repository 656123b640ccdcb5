/**
 * Replay's answers to a QA run's tabs, each archived body read, decoded and base64-encoded for
 * CDP once per run rather than once per page: the Python docs' pages ask for 17 URLs each, nearly
 * all the same stylesheets, scripts and images, and Chromium does not keep responses fulfilled
 * over Fetch in its HTTP cache. An answer is kept only when it cannot depend on the page asking:
 * a plain GET (no Range, not a service worker script) of a URL the archive holds exactly one
 * capture of, served as that capture (not fuzzy), 200. Each request still costs one index lookup
 * (the captures of its URL key), so an answer is never served past a capture it does not match.
 * Bounded by bytes; the oldest answers go first.
 */
import type { Archive } from '../archive/archive-dir.ts';
import { replayResponse, type ReplayHttpRequest, type ReplayHttpResponse } from '../replay/replay-response.ts';
import { surtKey } from '../scope/surt.ts';

export interface ReplayAnswer extends ReplayHttpResponse {
  /** The body as Fetch.fulfillRequest takes it. */
  body64: string;
}

/** Bytes of kept bodies (decoded plus base64) at most. */
const MAX_BYTES = 48 << 20;
/** A body larger than this is not kept (a video is asked for by range anyway). */
const MAX_ONE = 4 << 20;

export class ReplayAnswers {
  readonly #kept = new Map<string, { captureId: number; answer: ReplayAnswer; bytes: number }>();
  #bytes = 0;
  hits = 0;

  async answer(archive: Archive, req: ReplayHttpRequest): Promise<ReplayAnswer> {
    const plain = (req.method ?? 'GET').toUpperCase() === 'GET' && !(req.headers ?? []).some(([k]) => /^(range|service-worker)$/i.test(k));
    let only: number | null = null;
    if (plain) {
      const rows = archive.index.findCaptures(surtKey(req.url.split('#')[0]!));
      only = rows.length === 1 ? rows[0]!.id : null;
      const kept = only === null ? undefined : this.#kept.get(req.url);
      if (kept && kept.captureId === only) {
        this.hits++;
        return kept.answer;
      }
    }
    const r = await replayResponse(archive, req);
    const answer: ReplayAnswer = { ...r, body64: r.body.toString('base64') };
    const info = r.info;
    if (only !== null && info.kind === 'archived' && info.capture.id === only && !info.capture.fuzzy && r.status === 200 && r.body.length <= MAX_ONE) {
      this.#keep(req.url, only, answer);
    }
    return answer;
  }

  #keep(url: string, captureId: number, answer: ReplayAnswer): void {
    const bytes = answer.body.length + answer.body64.length;
    const old = this.#kept.get(url);
    if (old) {
      this.#bytes -= old.bytes;
      this.#kept.delete(url);
    }
    this.#kept.set(url, { captureId, answer, bytes });
    this.#bytes += bytes;
    for (const [k, v] of this.#kept) {
      if (this.#bytes <= MAX_BYTES) break;
      this.#kept.delete(k);
      this.#bytes -= v.bytes;
    }
  }
}
