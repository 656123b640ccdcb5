/**
 * The QA results kept with an archive (core/archive/qa-store.ts) and the scores (core/qa/qa-score.ts),
 * without a browser: runs are kept, a page's current result is its newest scoring, listing is
 * worst first with filters and paging, reviews survive re-runs, screenshots are files read back as
 * data: URLs; pixelmatch and Levenshtein scores and the bands on made-up inputs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { QaBand, QaPageResult } from '../../core/api/qa-types.ts';
import { currentQaBands, listQaPages, listQaRuns, qaPage, QaRunWriter, readQaShots, setReview, writeQaShot } from '../../core/archive/qa-store.ts';
import { bandOf, isBlank, pageBand, scoreView, screenshotMatch, textMatch, worthRereading } from '../../core/qa/qa-score.ts';

const dirs: string[] = [];
function tmpArchive(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-qa-store-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function result(url: string, band: QaBand, worst: number, ts = '20260101000000'): QaPageResult {
  return {
    url,
    ts,
    reference: 'replay-only',
    screenshotScore: null,
    textScore: null,
    resourceScore: worst,
    resources: { captured: 9, missing: band === 'good' ? 0 : 1, errors: 0 },
    band,
    missingUrls: band === 'good' ? [] : [`${url}style.css`],
    errorUrls: [],
    scriptErrors: [],
    verdict: null,
    note: null,
  };
}

function png(w: number, h: number, paint: (x: number, y: number) => [number, number, number]): Buffer {
  const img = new PNG({ width: w, height: h });
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const [r, g, b] = paint(x, y);
      img.data.set([r, g, b, 255], (y * w + x) * 4);
    }
  return PNG.sync.write(img);
}

describe('qa-store', () => {
  it('keeps runs, lists current results worst first, and keeps reviews through re-runs', () => {
    const dir = tmpArchive();
    expect(listQaRuns(dir)).toEqual([]);
    expect(listQaPages(dir)).toEqual([]);
    const one = new QaRunWriter(dir, { tabs: 2 }, null, new Date('2026-01-01T10:00:00Z'));
    one.add(result('http://a/', 'good', 1));
    one.add(result('http://b/', 'moderate', 0.8));
    one.add(result('http://c/', 'severe', 0.2));
    one.add(result('http://d/', 'moderate', 0.6));
    const run1 = one.finish(new Date('2026-01-01T10:01:00Z'));
    one.close();
    expect(run1).toMatchObject({ pages: 4, bands: { severe: 1, moderate: 2, good: 1 }, references: { 'replay-only': 4 }, afterPatchOf: null, finishedAt: '2026-01-01T10:01:00.000Z' });
    expect(listQaPages(dir).map((p) => p.url)).toEqual(['http://c/', 'http://d/', 'http://b/', 'http://a/']);
    expect(listQaPages(dir, { band: 'moderate' }).map((p) => p.url)).toEqual(['http://d/', 'http://b/']);
    expect(listQaPages(dir, { limit: 2, offset: 1 }).map((p) => p.url)).toEqual(['http://d/', 'http://b/']);
    expect(listQaPages(dir, { urlContains: '//a' }).map((p) => p.url)).toEqual(['http://a/']);

    setReview(dir, 'http://c/', '20260101000000', 'rejected', 'layout gone');
    expect(listQaPages(dir, { verdict: 'none' })).toHaveLength(3);
    // A later run re-scores two pages (one captured again at a new ts): they take its results, the others stay.
    const two = new QaRunWriter(dir, {}, run1.id);
    two.add(result('http://c/', 'severe', 0.1));
    two.add(result('http://d/', 'good', 1, '20260202000000'));
    const run2 = two.finish();
    two.close();
    expect(run2.afterPatchOf).toBe(run1.id);
    expect(listQaRuns(dir).map((r) => r.id)).toEqual([run2.id, run1.id]);
    const c = qaPage(dir, 'http://c/', '20260101000000')!;
    expect(c).toMatchObject({ band: 'severe', resourceScore: 0.1, verdict: 'rejected', note: 'layout gone', runId: run2.id, missingUrls: ['http://c/style.css'] });
    expect(qaPage(dir, 'http://d/', '20260202000000')).toMatchObject({ band: 'good', runId: run2.id });
    expect(qaPage(dir, 'http://b/', '20260101000000')).toMatchObject({ band: 'moderate', runId: run1.id });
    expect(currentQaBands(dir)).toEqual({ severe: 1, moderate: 1, good: 2 });
    setReview(dir, 'http://c/', '20260101000000', null, null);
    expect(qaPage(dir, 'http://c/', '20260101000000')).toMatchObject({ verdict: null, note: null });
  });

  it('keeps a page screenshots as files and hands them out as data: URLs', () => {
    const dir = tmpArchive();
    const shot = png(4, 4, () => [255, 0, 0]);
    writeQaShot(dir, 'http://a/', '20260101000000', 'replay', shot);
    const shots = readQaShots(dir, 'http://a/', '20260101000000');
    expect(shots.replay).toBe(`data:image/png;base64,${shot.toString('base64')}`);
    expect(shots.reference).toBeNull();
    writeQaShot(dir, 'http://a/', '20260101000000', 'replay', null);
    expect(readQaShots(dir, 'http://a/', '20260101000000').replay).toBeNull();
  });
});

describe('qa-score', () => {
  it('scores screenshots with pixelmatch, text with Levenshtein, and bands as Browsertrix does', () => {
    const white = png(100, 100, () => [255, 255, 255]);
    const halfBlack = png(100, 100, (x) => (x < 50 ? [0, 0, 0] : [255, 255, 255]));
    expect(screenshotMatch(white, white).score).toBe(1);
    expect(screenshotMatch(white, halfBlack).score).toBeCloseTo(0.5, 5);
    // Different sizes: the part of the larger one outside the smaller counts as mismatched.
    expect(screenshotMatch(white, png(100, 50, () => [255, 255, 255])).score).toBeCloseTo(0.5, 5);
    expect(isBlank(white)).toBe(true);
    expect(isBlank(halfBlack)).toBe(false);
    expect(textMatch('hello world', 'hello   world')).toBe(1);
    expect(textMatch('abcd', 'abcx')).toBe(0.75);
    expect(textMatch('', '')).toBe(1);
    expect([0.49, 0.5, 0.89, 0.9].map(bandOf)).toEqual(['severe', 'moderate', 'moderate', 'good']);
    const base = { screenshotScore: 1, textScore: 1, resourceScore: 1, resources: { captured: 10, missing: 0, errors: 0 }, pageFailed: false, empty: false, scriptErrors: 0 };
    expect(pageBand({ ...base, reference: 'capture' })).toBe('good');
    expect(pageBand({ ...base, reference: 'capture', textScore: 0.3 })).toBe('severe');
    // A missing resource is never good, even when it moves no score below 0.9.
    expect(pageBand({ ...base, reference: 'capture', resourceScore: 10 / 11, resources: { captured: 10, missing: 1, errors: 0 } })).toBe('moderate');
    expect(pageBand({ ...base, reference: 'replay-only', screenshotScore: null, textScore: null, scriptErrors: 1 })).toBe('moderate');
    expect(pageBand({ ...base, reference: 'replay-only', screenshotScore: null, textScore: null, empty: true })).toBe('severe');
    expect(pageBand({ ...base, reference: 'replay-only', screenshotScore: null, textScore: null, pageFailed: true })).toBe('severe');
  });

  it('reads a page not good a second time only when replay answered all it asked (it may have been read too early)', () => {
    const seen = { pageFailed: false, timedOut: false, title: '', text: 'Page', screenshot: png(10, 10, () => [255, 255, 255]), captured: 2, missingUrls: [], errorUrls: [], scriptErrors: [] };
    // Unlike its capture-time screenshot: worth a second read.
    const unlike = scoreView('capture', { screenshot: png(10, 10, () => [0, 0, 0]), text: 'Page' }, seen);
    expect(unlike.band).toBe('severe');
    expect(worthRereading(seen, unlike.band)).toBe(true);
    expect(worthRereading(seen, scoreView('capture', { screenshot: seen.screenshot, text: 'Page' }, seen).band)).toBe(false);
    // A missing or failed resource, or page, does not come back by waiting.
    expect(worthRereading({ ...seen, missingUrls: ['http://x/a.css'] }, 'severe')).toBe(false);
    expect(worthRereading({ ...seen, errorUrls: [{ url: 'http://x/a.css', status: 404 }] }, 'moderate')).toBe(false);
    expect(worthRereading({ ...seen, pageFailed: true }, 'severe')).toBe(false);
  });
});
