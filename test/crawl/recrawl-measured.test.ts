/**
 * Issue 38, measured on a section of Debian's Python docs served by nginx (bench/recrawl-scenario.ts;
 * the `recrawl` bench runs the whole docs): crawl, edit 5% of the pages, delete 1%, add 1%, touch
 * 20% without change, recrawl. The change report names exactly the edited, deleted and added
 * pages; the recrawl's WARCs are at most 10% of the first crawl's by default (a revisit of its own
 * URL keeps its request record, written short: docs/FORMATS.md); nginx answered 304 for the
 * files left alone; every page of the recrawl replays, from it alone, as the live site serves it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nginxAvailable } from '../../bench/bench-nginx.ts';
import { DOCS, replayMismatches, runRecrawlScenario, type ScenarioResult } from '../../bench/recrawl-scenario.ts';
import { prng } from '../helpers/seeded-random.ts';

const can = nginxAvailable() && fs.existsSync(DOCS);

describe.skipIf(!can)('recrawl of an edited copy of the Python docs (howto section; skipped without nginx and python3-doc)', () => {
  let work: string;
  let r: ScenarioResult;
  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-recrawl-'));
    r = await runRecrawlScenario({ work, section: '/howto/', random: prng(38) });
  }, 600_000);
  afterAll(async () => {
    await r?.nginx.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  const paths = (kind: string) => r.report.pages.filter((p) => p.kind === kind).map((p) => new URL(p.url).pathname).sort();

  it('reports exactly the edited, deleted and added pages, and none of the touched ones', () => {
    expect(r.first.state).toBe('finished');
    expect(r.second.state).toBe('finished');
    expect(paths('changed')).toEqual([...r.edited].sort());
    expect(paths('removed')).toEqual([...r.deleted].sort());
    expect(paths('added')).toEqual([...r.added].sort());
    const unchanged = new Set(paths('unchanged'));
    for (const t of r.touched) expect(unchanged.has(t)).toBe(true);
    for (const p of r.report.pages.filter((x) => x.kind === 'changed')) expect(p.textChange).toBeGreaterThan(40);
  });

  it("writes at most 10% of the first crawl's WARC bytes, each revisit with its request record", () => {
    expect(r.secondWarcBytes / r.firstWarcBytes).toBeLessThanOrEqual(0.1);
  });

  it('was answered 304 by nginx for the files left alone', () => {
    const status = new Map(r.recrawlRequests);
    const changed = new Set([...r.edited, ...r.touched, ...r.deleted, ...r.added]);
    const alone = [...status.keys()].filter((p) => p.startsWith('/howto/') && p.endsWith('.html') && !changed.has(p) && !p.endsWith('/index.html'));
    expect(alone.length).toBeGreaterThan(5);
    for (const p of alone) expect([p, status.get(p)]).toEqual([p, 304]);
    for (const p of r.touched) expect([p, status.get(p)]).toEqual([p, 200]);
  });

  it('replays every page of the recrawl from it (and its chain) as the live site serves it', async () => {
    const { compared, differ } = await replayMismatches(r);
    expect(compared).toBeGreaterThan(r.pages / 2);
    expect(differ).toEqual([]);
  }, 300_000);
});
