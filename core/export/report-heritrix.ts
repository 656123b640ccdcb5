/**
 * Heritrix 3's end-of-crawl text reports, in its column layouts, so scripts written for
 * Heritrix's `reports/` folder keep working:
 *
 *   crawl-report.txt          `name: value` lines (CrawlSummaryReport)
 *   seeds-report.txt          [code] [status] [seed] [redirect]
 *   hosts-report.txt          [#urls] [#bytes] [host] [#robots] [#remaining] [#novel-urls] [#novel-bytes]
 *                             [#dup-by-hash-urls] [#dup-by-hash-bytes] [#not-modified-urls] [#not-modified-bytes]
 *   mimetype-report.txt       [#urls] [#bytes] [mime-types]
 *   responsecode-report.txt   [#urls] [rescode]
 *
 * The headers and column orders are Heritrix 3's as far as we know them; written from memory of
 * its reports, not from its source, which was not at hand. Guessed: the exact labels and order
 * of crawl-report.txt lines, the `(… KiB)` form of byte counts there, the duration format
 * (`1h2m3s4ms`), `CRAWLED`/`NOTCRAWLED` as the seeds' status words, and hosts sorted by URL count.
 */
import { formatBytes } from '../formats/byte-size.ts';
import type { ReportData } from './report-data.ts';

/** Heritrix's `(… KiB)` byte counts: whole units. */
const humanBytes = (n: number): string => formatBytes(n, 0);

/** Heritrix's conventional duration: `1h2m3s4ms`, leading zero units left out. */
export function heritrixDuration(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const rest = Math.round(ms % 1000);
  let out = '';
  if (h > 0) out += `${h}h`;
  if (h > 0 || m > 0) out += `${m}m`;
  if (h > 0 || m > 0 || s > 0) out += `${s}s`;
  return `${out}${rest}ms`;
}

/**
 * crawl-report.txt. The duration is the whole time from start to end; the rates are over the
 * time the crawl ran (`pausedMs` left out, report-paused-time.ts), and a paused crawl says how
 * long it was paused. URIs held back by a reached page limit are counted on a line of their own
 * (not Heritrix's: it has no page limit), only when there are some.
 */
export function crawlReport(d: ReportData, pausedMs = 0): string {
  const s = d.summary;
  const secs = Math.max(0, (s.elapsedMs ?? 0) - pausedMs) / 1000;
  const lines: [string, string][] = [
    ['crawl name', s.crawlName ?? '-'],
    ['crawl status', s.state ? s.state.charAt(0).toUpperCase() + s.state.slice(1) : 'Unknown'],
    ['duration', s.elapsedMs !== null ? heritrixDuration(s.elapsedMs) : '-'],
    ...(pausedMs > 0 ? [['time paused', heritrixDuration(pausedMs)] as [string, string]] : []),
    ['seeds crawled', String(s.seedsCrawled)],
    ['seeds uncrawled', String(s.seeds - s.seedsCrawled)],
    ['hosts visited', String(s.hosts)],
    ['URIs processed', String(s.urisProcessed)],
    ['URI successes', String(s.successes)],
    ['URI failures', String(s.failures)],
    ['URI disregards', String(s.scopeRejections)],
    ...(s.heldByPageLimit > 0 ? [['URIs held back by the page limit', String(s.heldByPageLimit)] as [string, string]] : []),
    ['novel URIs', String(s.novelUris)],
    ['duplicate-by-hash URIs', String(s.duplicateUris)],
    ['not-modified URIs', String(s.notModifiedUris)],
    ['total crawled bytes', `${s.totalBytes} (${humanBytes(s.totalBytes)})`],
    ['novel crawled bytes', `${s.novelBytes} (${humanBytes(s.novelBytes)})`],
    ['duplicate-by-hash crawled bytes', `${s.duplicateBytes} (${humanBytes(s.duplicateBytes)})`],
    ['not-modified crawled bytes', `${s.notModifiedBytes} (${humanBytes(s.notModifiedBytes)})`],
    ['URIs/sec', secs > 0 ? (s.urisProcessed / secs).toFixed(2) : '-'],
    ['KB/sec', secs > 0 ? String(Math.round(s.totalBytes / 1024 / secs)) : '-'],
  ];
  return lines.map(([k, v]) => `${k}: ${v}`).join('\n') + '\n';
}

export function seedsReport(d: ReportData): string {
  const rows = d.seeds.map((x) => [x.status ?? 0, x.crawled ? 'CRAWLED' : 'NOTCRAWLED', x.seed, x.redirect ?? ''].join(' ').trimEnd());
  return ['[code] [status] [seed] [redirect]', ...rows].join('\n') + '\n';
}

export function hostsReport(d: ReportData): string {
  const head = '[#urls] [#bytes] [host] [#robots] [#remaining] [#novel-urls] [#novel-bytes] [#dup-by-hash-urls] [#dup-by-hash-bytes] [#not-modified-urls] [#not-modified-bytes]';
  const rows = d.hosts.map((h) =>
    [h.urls, h.bytes, h.host, h.robots, h.remaining, h.novelUrls, h.novelBytes, h.dupUrls, h.dupBytes, h.notModifiedUrls, h.notModifiedBytes].join(' '),
  );
  return [head, ...rows].join('\n') + '\n';
}

export function mimetypeReport(d: ReportData): string {
  return ['[#urls] [#bytes] [mime-types]', ...d.mimeTypes.map((m) => `${m.urls} ${m.bytes} ${m.mime}`)].join('\n') + '\n';
}

export function responsecodeReport(d: ReportData): string {
  return ['[#urls] [rescode]', ...d.statusCodes.map((c) => `${c.urls} ${c.status}`)].join('\n') + '\n';
}
