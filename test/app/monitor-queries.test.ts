/**
 * The monitor's core queries on real files and a real SQLite frontier: the log tail (paged from
 * the end, filters, a line still being written), a queue's URIs in claim order with a keyset
 * cursor, and the exclusion preview over the queue.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLogTail } from '../../core/app/crawl-log-tail.ts';
import { formatCrawlLogLine } from '../../core/crawl/crawl-log.ts';
import { createSqliteFrontier } from '../../core/frontier/sqlite-frontier.ts';
import { queuedMatching, queuedPage } from '../../core/frontier/frontier-view.ts';
import { openDatabase } from '../../core/storage/open-database.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-monitor-q-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function crawlLog(n: number): string {
  const file = path.join(dir, `crawl-${n}.log`);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const status = i % 10 === 0 ? 404 : i % 7 === 0 ? -9998 : 200;
    const host = i % 2 === 0 ? 'a.example' : 'www.b.example';
    lines.push(formatCrawlLogLine({ time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)), status, size: i, url: `http://${host}/p/${i}`, hopsPath: 'L', via: null, mime: 'text/html', slot: 0 }));
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

describe('readLogTail', () => {
  it('pages from the end, newest first, and meets the start of the file exactly once', () => {
    const file = crawlLog(5000);
    const seen: string[] = [];
    let before: number | undefined;
    for (;;) {
      const page = readLogTail(file, { id: 'x', log: 'crawl', limit: 333, ...(before !== undefined ? { before } : {}) });
      seen.push(...page.lines.map((l) => l.url));
      if (page.next === null) break;
      before = page.next;
    }
    expect(seen.length).toBe(5000);
    expect(seen[0]).toBe('http://www.b.example/p/4999');
    expect(seen.at(-1)).toBe('http://a.example/p/0');
    expect(new Set(seen).size).toBe(5000);
  });

  it('filters by status, status class, negative outcomes, host suffix and text', () => {
    const file = crawlLog(200);
    const q = (f: object) => readLogTail(file, { id: 'x', log: 'crawl', limit: 1000, ...f }).lines;
    expect(q({ status: '404' }).length).toBe(20);
    expect(q({ status: '4xx' }).length).toBe(20);
    expect(q({ status: 'neg' }).every((l) => l.status === -9998)).toBe(true);
    expect(q({ host: 'b.example' }).every((l) => l.url.includes('www.b.example'))).toBe(true);
    expect(q({ host: 'b.example' }).length).toBe(100);
    expect(q({ text: '/p/19' }).map((l) => l.url)).toEqual(['http://www.b.example/p/199', 'http://www.b.example/p/197', 'http://www.b.example/p/195', 'http://www.b.example/p/193', 'http://www.b.example/p/191', 'http://a.example/p/198', 'http://a.example/p/196', 'http://a.example/p/194', 'http://a.example/p/192', 'http://a.example/p/190', 'http://www.b.example/p/19'].sort((a, b) => Number(b.split('/').at(-1)) - Number(a.split('/').at(-1))));
    expect(q({ text: '/P/199' }).map((l) => l.url)).toEqual(['http://www.b.example/p/199']);
  });

  it('skips a last line still being written, and reads scope.log rules and reasons', () => {
    const file = path.join(dir, 'scope.log');
    fs.writeFileSync(
      file,
      '2026-01-01T00:00:00.000Z exclude-regex http://a.example/cal/1 LL http://a.example/ matched /cal/\n' +
        '2026-01-01T00:00:01.000Z max-hops http://a.example/deep LLLLL - more than 4 hops\n' +
        '2026-01-01T00:00:02.000Z exclude-reg',
    );
    const page = readLogTail(file, { id: 'x', log: 'scope', limit: 10 });
    expect(page.lines.map((l) => l.rule)).toEqual(['max-hops', 'exclude-regex']);
    expect(page.lines[0]!.reason).toBe('more than 4 hops');
    expect(page.lines[1]!.via).toBe('http://a.example/');
    expect(readLogTail(file, { id: 'x', log: 'scope', limit: 10, rule: 'exclude-regex' }).lines.map((l) => l.url)).toEqual(['http://a.example/cal/1']);
    expect(readLogTail(path.join(dir, 'missing.log'), { id: 'x', log: 'scope', limit: 10 }).lines).toEqual([]);
  });
});

describe('frontier view', () => {
  it('pages a queue in claim order and previews an exclusion over the queue', () => {
    const db = openDatabase(path.join(dir, 'f.sqlite'));
    const f = createSqliteFrontier(db);
    const cands = Array.from({ length: 25 }, (_, i) => ({
      url: `http://a.example/${i % 3 === 0 ? 'cal' : 'page'}/${i}`,
      canonical: `http://a.example/x/${i}`,
      fingerprint: BigInt(i + 1),
      queueKey: 'a.example',
      hopsPath: 'L',
      via: null,
      ...(i === 24 ? { directive: 2 } : {}),
    }));
    f.schedule(cands);
    const urls: string[] = [];
    let after: string | null = null;
    for (;;) {
      const p = queuedPage(db, 'a.example', 10, after);
      expect(p.pending).toBe(25);
      urls.push(...p.uris.map((u) => u.url));
      if (!p.next) break;
      after = p.next;
    }
    expect(urls.length).toBe(25);
    expect(urls[0]).toBe('http://a.example/cal/24'); // the prerequisite first, as claim takes it
    expect(urls[1]).toBe('http://a.example/cal/0');
    expect(queuedPage(db, 'nope', 10, null).uris).toEqual([]);

    const m = queuedMatching(db, /\/cal\//, 3);
    expect(m.count).toBe(9);
    expect(m.complete).toBe(true);
    const capped = queuedMatching(db, /\/cal\//, 3, 10);
    expect(capped).toMatchObject({ count: 4, complete: false }); // cal/0, 3, 6, 9 among the first 10 rows
    expect(m.samples).toEqual(['http://a.example/cal/0', 'http://a.example/cal/3', 'http://a.example/cal/6']);
    db.close();
  });
});
