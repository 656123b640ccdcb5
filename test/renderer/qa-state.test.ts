// @vitest-environment happy-dom
// The QA view's state over the real TroveApi with faked handlers: the list worst-first as the
// core sends it, a page opened with its pictures, a review (the same verdict again clears it),
// a run's progress and ETA from qa.progress events (App.svelte routes them to onProgress), and the list read again when the job ends.
import { describe, expect, it } from 'vitest';
import { QaState } from '../../renderer/src/lib/qa-state.svelte.ts';
import { etaMs } from '../../renderer/src/lib/qa-format.ts';
import type { QaBand, QaPageResult, QaRunInfo } from '../../core/api/qa-types.ts';
import type { QaReviewRequest } from '../../core/api/qa-view-types.ts';
import { fakeApi, tick } from './fake-api.ts';

const TS = '20260101000000';
const page = (url: string, band: QaBand): QaPageResult => ({
  url, ts: TS, reference: 'capture', screenshotScore: band === 'good' ? 1 : 0.3, textScore: 1, resourceScore: 1,
  resources: { captured: 3, missing: band === 'good' ? 0 : 1, errors: 0 }, band, missingUrls: band === 'good' ? [] : [`${url}x.css`], errorUrls: [], scriptErrors: [], verdict: null, note: null,
});
const run: QaRunInfo = { id: 1, startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z', references: { capture: 2 }, pages: 2, bands: { good: 1, moderate: 0, severe: 1 }, afterPatchOf: null };

describe('QaState', () => {
  it('lists, opens a page side by side, reviews it, and follows a run to its end', async () => {
    let rows = [page('http://a/bad/', 'severe'), page('http://a/ok/', 'good')];
    let resolveRun!: () => void;
    const reviews: QaReviewRequest[] = [];
    const fake = fakeApi({
      'qa.status': () => null,
      'qa.pages': () => ({ run, bands: { good: rows.filter((r) => r.band === 'good').length, moderate: 0, severe: rows.filter((r) => r.band === 'severe').length }, rows, total: rows.length, offset: 0 }),
      'qa.page': (p) => rows.find((r) => r.url === p.url) ?? null,
      'qa.shots': () => ({ reference: 'data:image/png;base64,AA==', replay: 'data:image/png;base64,AB==', diff: null }),
      'qa.review': (p) => {
        reviews.push(p);
        return { url: p.url, ts: p.ts, verdict: p.verdict, note: p.note };
      },
      'qa.run': () => new Promise((resolve) => (resolveRun = () => resolve(run))),
    });
    let now = 10_000;
    const qa = new QaState(fake.api, () => now);
    await qa.open('A');
    expect(qa.rows.map((r) => r.band)).toEqual(['severe', 'good']);
    expect(qa.bands).toEqual({ good: 1, moderate: 0, severe: 1 });

    await qa.select(rows[0]!);
    expect(qa.selected?.url).toBe('http://a/bad/');
    expect(qa.shots).toEqual({ reference: 'data:image/png;base64,AA==', replay: 'data:image/png;base64,AB==', diff: null });

    qa.note = ' missing css ';
    await qa.review('rejected');
    expect(reviews.at(-1)).toEqual({ archiveId: 'A', url: 'http://a/bad/', ts: TS, verdict: 'rejected', note: 'missing css' });
    expect(qa.selected?.verdict).toBe('rejected');
    expect(qa.rows[0]).toMatchObject({ verdict: 'rejected', note: 'missing css' });
    await qa.review('rejected');
    expect(reviews.at(-1)!.verdict).toBeNull();

    const running = qa.runQa();
    await tick();
    expect(qa.job).toMatchObject({ job: 'qa', startedAt: 10_000 });
    now = 14_000;
    qa.onProgress({ archiveId: 'A', job: 'qa', startedAt: 10_000, phase: 'qa', progress: { done: 1, total: 5, url: 'http://a/ok/' } });
    qa.onProgress({ archiveId: 'other', job: 'qa', startedAt: 0, phase: 'qa', progress: { done: 9, total: 9, url: null } });
    expect(qa.fraction).toBeCloseTo(0.2);
    expect(qa.eta).toBe(16_000);
    rows = [page('http://a/bad/', 'good'), page('http://a/ok/', 'good')];
    resolveRun();
    await running;
    expect(qa.job).toBeNull();
    expect(qa.rows.map((r) => r.band)).toEqual(['good', 'good']);
    expect(qa.selected?.band).toBe('good');
  });

  it('shows an error the job ended with, and picks up a job under way when opened', async () => {
    const fake = fakeApi({
      'qa.status': () => ({ archiveId: 'A', job: 'patch', startedAt: 1, phase: 'crawl', progress: { done: 3, total: 9, url: null } }),
      'qa.pages': () => ({ run: null, bands: { good: 0, moderate: 0, severe: 0 }, rows: [], total: 0, offset: 0 }),
    });
    const qa = new QaState(fake.api);
    await qa.open('A');
    expect(qa.job).toMatchObject({ job: 'patch', phase: 'crawl' });
    qa.onDone({ archiveId: 'A', job: 'patch', ok: false, cancelled: false, message: 'the site is gone' });
    await tick();
    expect(qa.job).toBeNull();
    expect(qa.jobError).toBe('the site is gone');
  });

  it('gives no ETA before the first page or once done', () => {
    expect(etaMs(0, 10, 0, 1000)).toBeNull();
    expect(etaMs(10, 10, 0, 1000)).toBeNull();
    expect(etaMs(5, 10, 0, 1000)).toBe(1000);
  });
});
