/**
 * Live counters for a crawl: totals, status and MIME tallies, and rates over a sliding window
 * (current) and since start, paused time left out (average), as Heritrix's console shows them.
 * What a browser tab loads for a page counts as a download too, as the WARC holds it.
 */
import type { RecentUri } from '../api/crawl-snapshot.ts';
import { mediaType } from '../formats/media-type.ts';

const WINDOW_MS = 10_000;
const RECENT_MAX = 50;

export interface StatsTotals {
  /** Responses, browser loads included. */
  downloaded: number;
  /**
   * Of `downloaded`, what browser tabs loaded for their pages (scripts, images, XHR answers,
   * redirects on the way to the page) and recorded beside them: archived, never in the frontier.
   */
  browserLoads: number;
  /** Tries made again after a failed one (a URI retried twice counts 2). */
  retries: number;
  failed: number;
  pages: number;
  /** Of the URIs, those captured by rendering in a browser tab (every page with --capture browser; those that needed it with auto). */
  rendered: number;
  bytes: number;
  novelBytes: number;
  duplicateBytes: number;
}

/** The per-code, per-type and per-rule tallies, kept across runs as the totals are. */
export interface StatsTallies {
  statusCodes: Record<string, number>;
  mimeTypes: Record<string, number>;
  scopeRejections: Record<string, number>;
}

export class CrawlStats {
  totals: StatsTotals = { downloaded: 0, browserLoads: 0, retries: 0, failed: 0, pages: 0, rendered: 0, bytes: 0, novelBytes: 0, duplicateBytes: 0 };
  readonly statusCodes: Record<string, number> = {};
  readonly mimeTypes: Record<string, number> = {};
  readonly scopeRejections: Record<string, number> = {};
  readonly recent: RecentUri[] = [];
  private window: { t: number; bytes: number }[] = [];

  constructor(initial?: Partial<StatsTotals>, tallies?: Partial<StatsTallies>) {
    if (initial) this.totals = { ...this.totals, ...initial };
    // A resumed (or restarted, e.g. for a live exclusion) crawl carries on counting, so the
    // outcome and MIME panels keep agreeing with the totals.
    Object.assign(this.statusCodes, tallies?.statusCodes);
    Object.assign(this.mimeTypes, tallies?.mimeTypes);
    Object.assign(this.scopeRejections, tallies?.scopeRejections);
  }

  tallies(): StatsTallies {
    return { statusCodes: this.statusCodes, mimeTypes: this.mimeTypes, scopeRejections: this.scopeRejections };
  }

  /** The counters as they are now, to go back to with `restore` (a copy: later counting does not change it). */
  saved(): string {
    return JSON.stringify({ totals: this.totals, tallies: this.tallies() });
  }

  /** Back to what `saved` returned: outcomes counted since (a rolled-back group's) are forgotten. */
  restore(saved: string): void {
    const c = JSON.parse(saved) as { totals: StatsTotals; tallies: StatsTallies };
    Object.assign(this.totals, c.totals);
    for (const k of ['statusCodes', 'mimeTypes', 'scopeRejections'] as const) {
      for (const key of Object.keys(this[k])) delete this[k][key];
      Object.assign(this[k], c.tallies[k]);
    }
  }

  recordOutcome(u: RecentUri & { duplicate: boolean; page: boolean; rendered?: boolean }): void {
    if (u.status > 0) this.totals.downloaded++;
    else this.totals.failed++;
    if (u.page) this.totals.pages++;
    if (u.rendered) this.totals.rendered++;
    this.totals.bytes += u.bytes;
    if (u.duplicate) this.totals.duplicateBytes += u.bytes;
    else this.totals.novelBytes += u.bytes;
    const code = String(u.status);
    this.statusCodes[code] = (this.statusCodes[code] ?? 0) + 1;
    const m = mediaType(u.mime);
    if (m) this.mimeTypes[m] = (this.mimeTypes[m] ?? 0) + 1;
    this.recent.unshift({ time: u.time, status: u.status, outcome: u.outcome, url: u.url, hopsPath: u.hopsPath, mime: u.mime, bytes: u.bytes, durationMs: u.durationMs });
    if (this.recent.length > RECENT_MAX) this.recent.length = RECENT_MAX;
    this.window.push({ t: u.time, bytes: u.bytes });
  }

  /**
   * An exchange a browser tab recorded while loading a page (not a URI of the frontier): counted
   * as a download, with its bytes, status and media type, like a fetched URI.
   */
  recordBrowserLoad(u: Omit<RecentUri, 'outcome'> & { duplicate: boolean }): void {
    this.totals.browserLoads++;
    this.recordOutcome({ ...u, outcome: `HTTP ${u.status}`, page: false });
  }

  /** A URI put back for another try after a failed one. */
  recordRetry(): void {
    this.totals.retries++;
  }

  /** Queued URIs a live exclusion finished without fetching (counted as outcomes, as a claim-time drop is). */
  recordDropped(status: number, n: number): void {
    if (n <= 0) return;
    this.totals.failed += n;
    const code = String(status);
    this.statusCodes[code] = (this.statusCodes[code] ?? 0) + n;
  }

  recordScopeRejection(rule: string): void {
    this.scopeRejections[rule] = (this.scopeRejections[rule] ?? 0) + 1;
  }

  /**
   * Current rates over the last 10 s, and averages over `activeMs`: the time the crawl ran, its
   * paused time left out (a crawl paused overnight did not crawl slowly all night).
   */
  rates(now: number, activeMs: number): { urisPerSec: number; kbPerSec: number; avgUrisPerSec: number; avgKbPerSec: number } {
    const elapsedMs = Math.max(0, activeMs);
    const cutoff = now - WINDOW_MS;
    let drop = 0;
    while (drop < this.window.length && this.window[drop]!.t < cutoff) drop++;
    if (drop > 0) this.window.splice(0, drop);
    const span = Math.min(WINDOW_MS, Math.max(elapsedMs, 1)) / 1000;
    const wBytes = this.window.reduce((s, w) => s + w.bytes, 0);
    const done = this.totals.downloaded + this.totals.failed;
    const secs = Math.max(elapsedMs, 1) / 1000;
    return {
      urisPerSec: this.window.length / span,
      kbPerSec: wBytes / 1024 / span,
      avgUrisPerSec: done / secs,
      avgKbPerSec: this.totals.bytes / 1024 / secs,
    };
  }
}
