import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { csvField, exportReport } from '../../core/export/export-report.ts';
import type { ReportExportResult } from '../../core/export/export-report.ts';
import { recordTypeList } from '../../core/archive/record-type-key.ts';
import { crawlFixture } from './export-fixture.ts';
import type { CrawledArchive } from './export-fixture.ts';

/** A small RFC 4180 reader for the test (quoted fields, doubled quotes, CRLF rows). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += ch;
  }
  return rows;
}

describe('report export', () => {
  let c: CrawledArchive;
  let archive: Archive;
  let dir: string;
  let r: ReportExportResult;
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');

  beforeAll(async () => {
    c = await crawlFixture('report');
    archive = openArchive(c.dir, { create: false });
    dir = path.join(c.out, 'reports');
    r = await exportReport(archive, dir);
  }, 60_000);

  afterAll(async () => {
    archive?.close();
    await c?.cleanup();
  });

  it('writes every report as CSV and JSON, and the five Heritrix text reports', () => {
    for (const base of ['summary', 'seeds', 'hosts', 'mimetypes', 'status-codes', 'scope-rejections']) {
      expect(fs.existsSync(path.join(dir, `${base}.csv`)), base).toBe(true);
      expect(JSON.parse(read(`${base}.json`))).toBeTruthy();
    }
    for (const name of ['crawl-report.txt', 'seeds-report.txt', 'hosts-report.txt', 'mimetype-report.txt', 'responsecode-report.txt']) {
      expect(fs.existsSync(path.join(dir, name)), name).toBe(true);
    }
  });

  it('counts captures, failures, revisits and robots exclusions as the crawl made them', () => {
    const s = r.data.summary;
    const captures = (databaseOf(archive).prepare(`SELECT COUNT(*) AS n FROM records WHERE record_type IN ${recordTypeList(['response', 'revisit', 'resource'])}`).get() as { n: number }).n;
    expect(s.successes).toBe(captures);
    expect(s.duplicateUris).toBeGreaterThanOrEqual(1);
    expect(s.robotsPrecluded).toBeGreaterThanOrEqual(1);
    expect(s.crawlName).toBe('fixture');
    expect(s.state).toBe('finished');
    expect(s.queued).toBe(0);
    const codes = Object.fromEntries(r.data.statusCodes.map((x) => [x.status, x.urls]));
    expect(codes[404]).toBeGreaterThanOrEqual(1);
    expect(codes[500]).toBe(1);
    expect(codes[-9998]).toBeGreaterThanOrEqual(1);
    const home = r.data.hosts.find((h) => h.host === '127.0.0.1')!;
    expect(home.robots).toBeGreaterThanOrEqual(1);
    expect(home.dupUrls).toBeGreaterThanOrEqual(1);
    expect(r.data.hosts.find((h) => h.host === 'localhost')?.urls).toBeGreaterThanOrEqual(1);
    expect(r.data.seeds).toEqual([{ seed: c.site.origin + '/', status: 200, crawled: true, redirect: null }]);
  });

  it('counts scope rejections per rule from logs/scope.log', () => {
    const log = fs.readFileSync(path.join(c.dir, 'logs', 'scope.log'), 'utf8').trim().split('\n');
    expect(log.length).toBeGreaterThan(0);
    expect(r.data.scopeRejections.reduce((n, x) => n + x.count, 0)).toBe(log.length);
    const csv = parseCsv(read('scope-rejections.csv'));
    expect(csv[0]).toEqual(['rule', 'count']);
    expect(csv.slice(1).reduce((n, row) => n + Number(row[1]), 0)).toBe(log.length);
    // Named by their reason: the fixture's off-site link is "other-host", never "reject-all".
    expect(r.data.scopeRejections.map((x) => x.rule)).toContain('other-host');
    expect(r.data.scopeRejections.map((x) => x.rule)).not.toContain('reject-all');
  });

  it('writes the Heritrix layouts', () => {
    expect(read('hosts-report.txt').split('\n')[0]).toBe(
      '[#urls] [#bytes] [host] [#robots] [#remaining] [#novel-urls] [#novel-bytes] [#dup-by-hash-urls] [#dup-by-hash-bytes] [#not-modified-urls] [#not-modified-bytes]',
    );
    const hostLine = read('hosts-report.txt').split('\n').find((l) => l.split(' ')[2] === '127.0.0.1')!;
    expect(hostLine.split(' ')).toHaveLength(11);
    expect(read('mimetype-report.txt')).toMatch(/^\[#urls\] \[#bytes\] \[mime-types\]\n(\d+ \d+ \S+\n)+$/);
    expect(read('mimetype-report.txt')).toContain(' text/css\n');
    expect(read('responsecode-report.txt')).toMatch(/^\[#urls\] \[rescode\]\n(\d+ -?\d+\n)+$/);
    expect(read('responsecode-report.txt')).toContain('\n1 500\n');
    expect(read('seeds-report.txt')).toBe(`[code] [status] [seed] [redirect]\n200 CRAWLED ${c.site.origin}/\n`);
    const crawl = read('crawl-report.txt');
    expect(crawl).toContain('crawl name: fixture\n');
    expect(crawl).toContain('crawl status: Finished\n');
    expect(crawl).toMatch(/duration: (\d+[hms])*\d+ms\n/);
    expect(crawl).toMatch(/URI successes: \d+\n/);
  });

  it('CSV files parse back to the JSON data', () => {
    const hosts = parseCsv(read('hosts.csv'));
    expect(hosts[0]![0]).toBe('host');
    expect(hosts.length - 1).toBe(r.data.hosts.length);
    expect(Number(hosts[1]![1])).toBe(r.data.hosts[0]!.urls);
    const summary = Object.fromEntries(parseCsv(read('summary.csv')).slice(1));
    expect(summary.archive).toBe(archive.dir);
    expect(Number(summary.successes)).toBe(r.data.summary.successes);
    expect(csvField('a,"b"\n')).toBe('"a,""b""\n"');
  });
});
