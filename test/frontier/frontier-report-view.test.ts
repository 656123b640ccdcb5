/**
 * What a crawl report reads from the frontier (frontier-view.ts): URIs still to do or finished
 * with a failure, keyset-paged; the seeds with their outcome once finished; where a seed's
 * redirect led. A real SQLite frontier, driven through schedule / claim / complete.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFrontierView } from '../../core/frontier/frontier-view.ts';
import { createSqliteFrontier } from '../../core/frontier/sqlite-frontier.ts';
import type { Candidate } from '../../core/frontier/frontier.ts';
import { openDatabase } from '../../core/storage/open-database.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-frontier-report-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let fp = 1n;
const cand = (url: string, over: Partial<Candidate> = {}): Candidate => ({
  url,
  canonical: url,
  fingerprint: fp++,
  queueKey: new URL(url).host,
  hopsPath: '',
  via: null,
  ...over,
});

describe('frontier view for reports', () => {
  it('lists unfinished and failed URIs by id, the seeds with their outcome, and where a seed redirected', () => {
    const db = openDatabase(path.join(dir, 'crawl.sqlite'));
    const f = createSqliteFrontier(db);
    const view = createFrontierView(db);
    f.schedule([cand('http://a.example/', { seed: true }), cand('http://b.example/', { seed: true }), cand('http://c.example/', { seed: true })]);
    const byUrl = new Map<string, NonNullable<ReturnType<typeof f.claim>>>();
    for (let u = f.claim(0); u; u = f.claim(0)) byUrl.set(u.url, u);
    // a: a redirect to https (its target is scheduled with an R hop); b: precluded by robots; c stays in flight.
    f.complete(byUrl.get('http://a.example/')!, { status: 301, queueReadyAt: 0 }, [
      cand('https://a.example/', { hopsPath: 'R', via: 'http://a.example/', directive: 1 }),
    ]);
    f.complete(byUrl.get('http://b.example/')!, { status: -9998, queueReadyAt: 0 });

    const rows: ReturnType<typeof view.unfinishedOrFailed> = [];
    for (let after = 0; ; ) {
      const page = view.unfinishedOrFailed(after, 1);
      if (page.length === 0) break;
      rows.push(...page);
      after = page.at(-1)!.id;
    }
    expect(rows.map((r) => [r.url, r.status, r.finished])).toEqual([
      ['http://b.example/', -9998, true],
      ['http://c.example/', null, false],
      ['https://a.example/', null, false],
    ]);
    // A seed and a redirect from one may be pages (a reached page limit holds them back).
    expect(rows.map((r) => r.mayBePage)).toEqual([true, true, true]);
    expect(view.seeds().map((s) => [s.url, s.status, s.finished])).toEqual([
      ['http://a.example/', 301, true],
      ['http://b.example/', -9998, true],
      ['http://c.example/', null, false],
    ]);
    expect(view.redirectFrom('http://a.example/')).toBe('https://a.example/');
    expect(view.redirectFrom('http://b.example/')).toBeNull();
    db.close();
  });
});
