/**
 * `trove export --report DIR`: the crawl's reports as files an archivist can keep next to the
 * WARCs and open in a spreadsheet: summary, seeds, hosts, MIME types, status codes and scope
 * rejections per rule, each as CSV (RFC 4180, header row) and JSON; plus Heritrix 3's five text
 * reports (report-heritrix.ts) for scripts that read those; and, once the archive has been
 * through QA, each page's current QA result with the archivist's verdict and note (qa-pages).
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Archive } from '../archive/archive-dir.ts';
import { ProgressThrottle } from './export-types.ts';
import type { ProgressFn } from './export-types.ts';
import { gatherReport } from './report-data.ts';
import type { ReportData } from './report-data.ts';
import { pausedMsOf } from './report-paused-time.ts';
import { crawlReport, hostsReport, mimetypeReport, responsecodeReport, seedsReport } from './report-heritrix.ts';
import { listQaPages } from '../archive/qa-store.ts';

/** The QA report's columns: a page's current result flattened, with its review. */
const QA_COLUMNS = ['url', 'ts', 'band', 'reference', 'screenshotScore', 'textScore', 'resourceScore', 'captured', 'missing', 'errors', 'verdict', 'note', 'checkedAt'] as const;

function qaReportFiles(archive: Archive): [string, string][] {
  const pages = listQaPages(archive.dir);
  if (pages.length === 0) return [];
  const rows = pages.map((p) => ({
    url: p.url,
    ts: p.ts,
    band: p.band,
    reference: p.reference,
    screenshotScore: p.screenshotScore,
    textScore: p.textScore,
    resourceScore: p.resourceScore,
    captured: p.resources.captured,
    missing: p.resources.missing,
    errors: p.resources.errors,
    verdict: p.verdict,
    note: p.note,
    checkedAt: p.checkedAt ?? null,
  }));
  return [
    ['qa-pages.json', JSON.stringify(pages, null, 2) + '\n'],
    ['qa-pages.csv', toCsv(rows, [...QA_COLUMNS])],
  ];
}

export interface ReportExportOptions {
  onProgress?: ProgressFn;
  /** Aborting it stops the export (CANCELLED) while it reads the archive, before it writes a file. */
  signal?: AbortSignal;
}

export interface ReportExportResult {
  dir: string;
  files: string[];
  data: ReportData;
}

type Cell = string | number | boolean | null;

/** One CSV field: quoted when it holds a comma, quote, CR or LF (RFC 4180). */
export function csvField(v: Cell): string {
  const s = v === null ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv<T extends object>(rows: readonly T[], columns: (keyof T & string)[]): string {
  const lines = [columns.join(','), ...rows.map((r) => columns.map((c) => csvField(r[c] as Cell)).join(','))];
  return lines.join('\r\n') + '\r\n';
}

export async function exportReport(archive: Archive, dir: string, opts: ReportExportOptions = {}): Promise<ReportExportResult> {
  const progress = new ProgressThrottle(opts.onProgress, opts.signal);
  let rows = 0;
  const data = await gatherReport(archive, () => progress.report('read', ++rows, 0, 0));
  // Past here it only writes a few small files: a cancel now would leave some written, so it is not heard.
  const written = new ProgressThrottle(opts.onProgress);
  await fsp.mkdir(dir, { recursive: true });
  const summaryRows = Object.entries(data.summary).map(([key, value]) => ({ key, value: value as Cell }));
  const files: [string, string][] = [
    ['summary.json', JSON.stringify(data.summary, null, 2) + '\n'],
    ['summary.csv', toCsv(summaryRows, ['key', 'value'])],
    ['seeds.json', JSON.stringify(data.seeds, null, 2) + '\n'],
    ['seeds.csv', toCsv(data.seeds, ['seed', 'status', 'crawled', 'redirect'])],
    ['hosts.json', JSON.stringify(data.hosts, null, 2) + '\n'],
    [
      'hosts.csv',
      toCsv(data.hosts, ['host', 'urls', 'bytes', 'robots', 'remaining', 'novelUrls', 'novelBytes', 'dupUrls', 'dupBytes', 'notModifiedUrls', 'notModifiedBytes']),
    ],
    ['mimetypes.json', JSON.stringify(data.mimeTypes, null, 2) + '\n'],
    ['mimetypes.csv', toCsv(data.mimeTypes, ['mime', 'urls', 'bytes'])],
    ['status-codes.json', JSON.stringify(data.statusCodes, null, 2) + '\n'],
    ['status-codes.csv', toCsv(data.statusCodes, ['status', 'urls'])],
    ['scope-rejections.json', JSON.stringify(data.scopeRejections, null, 2) + '\n'],
    ['scope-rejections.csv', toCsv(data.scopeRejections, ['rule', 'count'])],
    ['crawl-report.txt', crawlReport(data, pausedMsOf(archive))],
    ['seeds-report.txt', seedsReport(data)],
    ['hosts-report.txt', hostsReport(data)],
    ['mimetype-report.txt', mimetypeReport(data)],
    ['responsecode-report.txt', responsecodeReport(data)],
    ...qaReportFiles(archive),
  ];
  let bytes = 0;
  for (const [i, [name, text]] of files.entries()) {
    await fsp.writeFile(path.join(dir, name), text, 'utf8');
    bytes += Buffer.byteLength(text);
    written.report('write', i + 1, files.length, bytes);
  }
  written.flush();
  return { dir, files: files.map(([n]) => n), data };
}
