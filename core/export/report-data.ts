/**
 * The figures behind `trove export --report`: a crawl's (or any archive's) summary, seeds,
 * hosts, MIME types, status codes and scope rejections, gathered from what the archive keeps:
 *
 * - captures (response, revisit, resource rows of the capture index), read in keyset pages: one
 *   per fetched URI; a response is "novel", a revisit "duplicate by hash" (or "not modified"
 *   when its HTTP status is 304), as Heritrix counts them; bytes are the payload sizes;
 * - failures, robots exclusions and what is still queued, from the frontier's `uris` table
 *   (empty for an archive made only by imports); once the crawl's page limit was reached, the
 *   queued URIs that may be pages are counted apart, as held back by the limit;
 * - seeds and crawl state from the `meta` table; scope rejections per reason from
 *   `logs/scope.log`, streamed line by line.
 *
 * Memory grows with the number of hosts, MIME types and rules, never with the number of URIs.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { Archive } from '../archive/archive-dir.ts';
import { mediaType } from '../formats/media-type.ts';
import { surtKey } from '../scope/surt.ts';

export interface ReportSummary {
  archive: string;
  crawlName: string | null;
  state: string | null;
  finishReason: string | null;
  /** ISO time the crawl was created, when it was a crawl. */
  created: string | null;
  elapsedMs: number | null;
  seeds: number;
  seedsCrawled: number;
  hosts: number;
  urisProcessed: number;
  successes: number;
  failures: number;
  robotsPrecluded: number;
  /** URIs left in the queue, those held back by the page limit aside. */
  queued: number;
  /**
   * URIs left that may be pages, once the crawl's page limit was reached: held back by the limit,
   * not work left undone (a resume with a higher limit fetches them).
   */
  heldByPageLimit: number;
  novelUris: number;
  duplicateUris: number;
  notModifiedUris: number;
  novelBytes: number;
  duplicateBytes: number;
  notModifiedBytes: number;
  totalBytes: number;
  pages: number;
  warcFiles: number;
  warcBytes: number;
  firstCapture: string | null;
  lastCapture: string | null;
  scopeRejections: number;
}

export interface SeedRow {
  seed: string;
  /** Outcome code: HTTP status, a negative Heritrix code, or null when never tried. */
  status: number | null;
  crawled: boolean;
  redirect: string | null;
}

export interface HostRow {
  host: string;
  urls: number;
  bytes: number;
  robots: number;
  remaining: number;
  novelUrls: number;
  novelBytes: number;
  dupUrls: number;
  dupBytes: number;
  notModifiedUrls: number;
  notModifiedBytes: number;
}

export interface ReportData {
  summary: ReportSummary;
  seeds: SeedRow[];
  hosts: HostRow[];
  mimeTypes: { mime: string; urls: number; bytes: number }[];
  statusCodes: { status: number; urls: number }[];
  scopeRejections: { rule: string; count: number }[];
}

const ROBOTS_PRECLUDED = -9998;
/** Rows read per keyset page. */
const PAGE = 2000;

function hostOf(url: string | null): string {
  if (!url) return '-';
  const u = URL.parse(url);
  if (!u) return '-';
  if (u.protocol === 'dns:') return 'dns:';
  return u.hostname || '-';
}

function hostRow(hosts: Map<string, HostRow>, host: string): HostRow {
  let h = hosts.get(host);
  if (!h) {
    h = { host, urls: 0, bytes: 0, robots: 0, remaining: 0, novelUrls: 0, novelBytes: 0, dupUrls: 0, dupBytes: 0, notModifiedUrls: 0, notModifiedBytes: 0 };
    hosts.set(host, h);
  }
  return h;
}

/** The report's counters as the rows are read (gatherReport's steps add to them). */
interface Tally {
  hosts: Map<string, HostRow>;
  mimes: Map<string, { mime: string; urls: number; bytes: number }>;
  statuses: Map<number, number>;
  summary: ReportSummary;
}

export async function gatherReport(archive: Archive, onRow?: () => void): Promise<ReportData> {
  const t: Tally = { hosts: new Map(), mimes: new Map(), statuses: new Map(), summary: emptySummary(archive.dir) };
  const s = t.summary;
  tallyCaptures(archive, t, onRow);

  // Seeds and crawl state.
  const settings = archive.meta<{ name?: string; seeds?: string[]; limitPages?: number }>('settings');
  const state = archive.meta<{ state?: string; reason?: string }>('lastState');
  const limitPages = settings?.limitPages ?? 0;
  const pagesCounted = archive.meta<{ pages?: number }>('stats')?.pages ?? 0;
  const pageLimitReached = limitPages > 0 && (state?.reason === 'limit-pages' || pagesCounted >= limitPages);

  tallyFrontier(archive, t, pageLimitReached, onRow);
  s.urisProcessed = s.successes + s.failures;

  const createdAt = archive.meta<number>('createdAt');
  s.crawlName = settings?.name ?? null;
  s.state = state?.state ?? null;
  s.finishReason = state?.reason ?? null;
  s.created = typeof createdAt === 'number' ? new Date(createdAt).toISOString() : null;
  s.elapsedMs = archive.meta<number>('elapsedMs') ?? null;
  const seeds = seedRows(archive, settings?.seeds ?? []);
  s.seeds = seeds.length;
  s.seedsCrawled = seeds.filter((x) => x.crawled).length;

  s.pages = archive.index.countPages();
  for (const f of archive.index.files()) {
    s.warcFiles++;
    s.warcBytes += f.size ?? 0;
  }

  const scopeRejections = await scopeRejectionsOf(path.join(archive.dir, 'logs', 'scope.log'));
  s.scopeRejections = scopeRejections.reduce((n, r) => n + r.count, 0);
  const hostList = [...t.hosts.values()].filter((h) => h.urls > 0 || h.remaining > 0 || h.robots > 0);
  s.hosts = hostList.filter((h) => h.urls > 0).length;

  return {
    summary: s,
    seeds,
    hosts: hostList.sort((a, b) => b.urls - a.urls || a.host.localeCompare(b.host)),
    mimeTypes: [...t.mimes.values()].sort((a, b) => b.urls - a.urls || a.mime.localeCompare(b.mime)),
    statusCodes: [...t.statuses.entries()].map(([status, urls]) => ({ status, urls })).sort((a, b) => b.urls - a.urls || a.status - b.status),
    scopeRejections,
  };
}

function emptySummary(dir: string): ReportSummary {
  return {
    archive: dir,
    crawlName: null,
    state: null,
    finishReason: null,
    created: null,
    elapsedMs: null,
    seeds: 0,
    seedsCrawled: 0,
    hosts: 0,
    urisProcessed: 0,
    successes: 0,
    failures: 0,
    robotsPrecluded: 0,
    queued: 0,
    heldByPageLimit: 0,
    novelUris: 0,
    duplicateUris: 0,
    notModifiedUris: 0,
    novelBytes: 0,
    duplicateBytes: 0,
    notModifiedBytes: 0,
    totalBytes: 0,
    pages: 0,
    warcFiles: 0,
    warcBytes: 0,
    firstCapture: null,
    lastCapture: null,
    scopeRejections: 0,
  };
}

/** Captures: one per fetched URI, counted by host, novelty, media type and status, a page of rows at a time. */
function tallyCaptures(archive: Archive, t: Tally, onRow: (() => void) | undefined): void {
  const { hosts, mimes, statuses, summary: s } = t;
  for (let after = 0; ; ) {
    const rows = archive.index.reportCaptures(after, PAGE);
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;
    for (const r of rows) {
      onRow?.();
      const h = hostRow(hosts, hostOf(r.targetUri));
      const bytes = r.contentLength ?? 0;
      h.urls++;
      h.bytes += bytes;
      s.successes++;
      s.totalBytes += bytes;
      if (r.recordType === 'revisit' && r.status === 304) {
        h.notModifiedUrls++;
        h.notModifiedBytes += bytes;
        s.notModifiedUris++;
        s.notModifiedBytes += bytes;
      } else if (r.recordType === 'revisit') {
        h.dupUrls++;
        h.dupBytes += bytes;
        s.duplicateUris++;
        s.duplicateBytes += bytes;
      } else {
        h.novelUrls++;
        h.novelBytes += bytes;
        s.novelUris++;
        s.novelBytes += bytes;
      }
      const mime = (r.recordType === 'revisit' && r.mime === 'warc/revisit' ? null : mediaType(r.mime)) ?? 'unknown';
      const m = mimes.get(mime) ?? { mime, urls: 0, bytes: 0 };
      m.urls++;
      m.bytes += bytes;
      mimes.set(mime, m);
      if (r.status !== null) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.ts) {
        if (s.firstCapture === null || r.ts < s.firstCapture) s.firstCapture = r.ts;
        if (s.lastCapture === null || r.ts > s.lastCapture) s.lastCapture = r.ts;
      }
    }
  }
}

/** The frontier: failures (negative outcomes), robots exclusions, what is left (queued, or held back by a reached page limit). */
function tallyFrontier(archive: Archive, t: Tally, pageLimitReached: boolean, onRow: (() => void) | undefined): void {
  const { hosts, statuses, summary: s } = t;
  for (let after = 0; ; ) {
    const rows = archive.frontier.unfinishedOrFailed(after, PAGE);
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;
    for (const r of rows) {
      onRow?.();
      const h = hostRow(hosts, hostOf(r.url));
      if (!r.finished) {
        h.remaining++;
        if (pageLimitReached && r.mayBePage) s.heldByPageLimit++;
        else s.queued++;
        continue;
      }
      // Finished with a failure: its status is the (negative) outcome code.
      const status = r.status ?? 0;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      s.failures++;
      if (status === ROBOTS_PRECLUDED) {
        h.robots++;
        s.robotsPrecluded++;
      }
    }
  }
}

/** Each seed's outcome from the frontier, and where it redirected to. */
function seedRows(archive: Archive, seeds: string[]): SeedRow[] {
  const rows = archive.frontier.seeds();
  const byKey = new Map(rows.map((r) => [surtKey(r.url), r]));
  return seeds.map((seed) => {
    const r = rows.find((x) => x.url === seed) ?? byKey.get(surtKey(seed));
    const status = r && r.finished ? r.status : null;
    const crawled = status !== null && status > 0;
    const to = r && status !== null && status >= 300 && status < 400 ? archive.frontier.redirectFrom(r.url) : null;
    return { seed, status, crawled, redirect: to };
  });
}

/**
 * Rejections per reason, from `logs/scope.log` (`time rule url hops via reason…`): the rule that
 * rejected, or the scope that did not accept (decide-rules.ts). Logs written before reasons were
 * named say `reject-all`, which names no reason: counted as `not-accepted`.
 */
async function scopeRejectionsOf(file: string): Promise<{ rule: string; count: number }[]> {
  if (!fs.existsSync(file)) return [];
  const counts = new Map<string, number>();
  const rl = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of rl) {
    let rule = line.split(' ', 3)[1];
    if (rule === 'reject-all') rule = 'not-accepted';
    if (rule) counts.set(rule, (counts.get(rule) ?? 0) + 1);
  }
  return [...counts.entries()].map(([rule, count]) => ({ rule, count })).sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule));
}
