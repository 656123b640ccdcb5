/**
 * Frontier.dropQueued on a real SQLite frontier (a live exclusion's delete-by-regex): queued
 * matches, pending and waiting, finish out of scope with their queue's counters and the
 * frontier's totals in step (what `counts()` and the monitor read), seeds and robots.txt
 * prerequisites are spared, URIs in flight are left alone, and the rest still claim in order.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteFrontier } from '../../core/frontier/sqlite-frontier.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import type { Candidate } from '../../core/frontier/frontier.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-drop-queued-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cand = (i: number, over: Partial<Candidate> = {}): Candidate => ({
  url: `http://a.example/${i % 2 === 0 ? 'cal' : 'page'}/${i}`,
  canonical: `http://a.example/x/${i}`,
  fingerprint: BigInt(i + 1),
  queueKey: i < 10 ? 'a.example' : 'b.example',
  hopsPath: 'L',
  via: 'http://a.example/',
  ...over,
});

describe('dropQueued', () => {
  it('finishes queued matches as out of scope and keeps every counter in step', () => {
    const db = openDatabase(path.join(dir, 'f.sqlite'));
    const f = createSqliteFrontier(db, { defaultMaxInFlight: 1 });
    f.schedule([
      cand(0, { seed: true, hopsPath: '' }), // a seed: spared
      cand(2, { hopsPath: 'P', viaContext: 'robots' }), // a robots.txt prerequisite: spared
      ...Array.from({ length: 16 }, (_, k) => cand(k + 3)),
      cand(40, { notBefore: Date.now() + 60_000 }), // waiting, and matching
    ]);
    const claimed = f.claim(Date.now())!; // in flight: left to finish
    expect(claimed.url).toMatch(/\/(cal|page)\//);
    const before = f.counts();
    const matches = (u: { url: string; seed: boolean; hopsPath: string; viaContext: string | null }) =>
      !u.seed && !(u.hopsPath.endsWith('P') && u.viaContext === 'robots') && /\/cal\//.test(u.url);
    const dropped: { url: string; hopsPath: string; via: string | null }[] = [];
    expect(f.dropQueued!(matches, -5000, 'exclude-regex', (u) => dropped.push(u))).toBe(dropped.length);
    const expected = [4, 6, 8, 10, 12, 14, 16, 18, 40].map((i) => `http://a.example/cal/${i}`).filter((u) => u !== claimed.url);
    expect(dropped.map((d) => d.url)).toEqual(expected);
    expect(dropped[0]).toMatchObject({ hopsPath: 'L', via: 'http://a.example/' });
    const after = f.counts();
    expect(after.pending).toBe(before.pending - dropped.length);
    expect(after.waiting).toBe(before.waiting - 1);
    expect(after.failed).toBe(before.failed + dropped.length);
    expect(after.inFlight).toBe(before.inFlight);
    const queues = f.queues();
    expect(queues.reduce((n, q) => n + q.failed, 0)).toBe(dropped.length);
    expect(queues.reduce((n, q) => n + q.pending, 0)).toBe(after.pending);
    // Again: nothing left to drop.
    expect(f.dropQueued!(matches, -5000, 'exclude-regex')).toBe(0);
    // The rest claim as before, and none of them matches.
    f.complete(claimed, { status: 200, queueReadyAt: 0 });
    const rest: string[] = [];
    for (let u = f.claim(Date.now()); u; u = f.claim(Date.now())) {
      rest.push(u.url);
      f.complete(u, { status: 200, queueReadyAt: 0 });
    }
    expect(rest.filter((u) => /\/cal\//.test(u) && u !== 'http://a.example/cal/0' && u !== 'http://a.example/cal/2')).toEqual([]);
    expect([claimed.url, ...rest]).toEqual(expect.arrayContaining(['http://a.example/cal/0', 'http://a.example/cal/2']));
    expect(f.counts()).toMatchObject({ pending: 0, waiting: 0, inFlight: 0 });
    expect(() => f.dropQueued!(matches, 200, 'x')).toThrow(/negative/);
    db.close();
  });

  it('drops across many batches of the queue', () => {
    const db = openDatabase(path.join(dir, 'many.sqlite'));
    const f = createSqliteFrontier(db, { defaultMaxInFlight: 1 });
    f.schedule(Array.from({ length: 2500 }, (_, i) => ({ ...cand(i), url: `http://c.example/${i % 3 === 0 ? 'x' : 'y'}/${i}`, queueKey: `q${i % 7}` })));
    const seen: string[] = [];
    const n = f.dropQueued!((u) => u.url.includes('/x/'), -5000, 'exclude-regex', (u) => seen.push(u.url));
    expect(n).toBe(834);
    expect(seen[0]).toBe('http://c.example/x/0');
    expect(seen.at(-1)).toBe('http://c.example/x/2499');
    expect(f.counts()).toMatchObject({ pending: 2500 - 834, failed: 834 });
    expect(f.queues().reduce((a, q) => a + q.pending, 0)).toBe(2500 - 834);
    db.close();
  });
});
