/**
 * The QA view's commands over the real app service and the real QA store (SQLite and PNG files
 * in the archive's qa/ folder): results worst-first with the current bands, one page with its
 * three screenshots, reviews that survive closing and reopening the service and go into the
 * exported reports (qa-pages.csv / .json), payloads refused
 * at the gate, and the job rules (one QA run or patch per archive, progress events, Cancel
 * raising the engine's signal, qa.done however it ends).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import { dispatch } from '../../core/app/gate.ts';
import { openArchive } from '../../core/archive/archive-dir.ts';
import { QaRunWriter, writeQaShot } from '../../core/archive/qa-store.ts';
import { QaJobs } from '../../core/app/qa-jobs.ts';
import type { EventName, Events } from '../../core/api/channels.ts';
import type { QaBand, QaPageResult } from '../../core/api/qa-types.ts';
import { png } from './fixture-site.ts';

const TS = '20260101000000';

function result(url: string, band: QaBand, score: number): QaPageResult {
  return {
    url,
    ts: TS,
    reference: 'capture',
    screenshotScore: score,
    textScore: 1,
    resourceScore: band === 'good' ? 1 : 0.5,
    resources: { captured: band === 'good' ? 4 : 2, missing: band === 'good' ? 0 : 2, errors: 0 },
    band,
    missingUrls: band === 'good' ? [] : [`${url}style.css`],
    errorUrls: [],
    scriptErrors: [],
    verdict: null,
    note: null,
  };
}

describe('qa.* commands', () => {
  let libraryDir: string;
  let service: AppService;
  const events: { name: EventName; payload: unknown }[] = [];
  const call = <T = unknown>(s: AppService, name: string, payload?: unknown) =>
    dispatch(s.handlers, name, payload) as Promise<{ ok: boolean; value: T; error: { code: string; message: string } }>;
  const open = () => createAppService({ libraryDir, emit: (name, payload) => events.push({ name, payload }) });

  beforeAll(() => {
    libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-qa-lib-'));
    const dir = path.join(libraryDir, 'Site');
    openArchive(dir, { create: true }).close();
    const w = new QaRunWriter(dir, {}, null);
    w.add(result('http://a/good/', 'good', 0.99));
    w.add(result('http://a/severe/', 'severe', 0.2));
    w.add(result('http://a/moderate/', 'moderate', 0.7));
    w.finish();
    w.close();
    writeQaShot(dir, 'http://a/severe/', TS, 'reference', png(8, 6, [0, 0, 255]));
    writeQaShot(dir, 'http://a/severe/', TS, 'replay', png(8, 6, [255, 255, 255]));
    writeQaShot(dir, 'http://a/severe/', TS, 'diff', png(8, 6, [255, 0, 0]));
    service = open();
  });

  afterAll(async () => {
    await service?.close();
    fs.rmSync(libraryDir, { recursive: true, force: true });
  });

  it('lists the current results worst first, with the bands and the newest run', async () => {
    const r = await call<{ run: { id: number } | null; bands: Record<QaBand, number>; rows: QaPageResult[]; total: number }>(service, 'qa.pages', { archiveId: 'Site', limit: 10 });
    expect(r.ok).toBe(true);
    expect(r.value.rows.map((p) => p.band)).toEqual(['severe', 'moderate', 'good']);
    expect(r.value.bands).toEqual({ severe: 1, moderate: 1, good: 1 });
    expect(r.value.total).toBe(3);
    expect(r.value.run?.id).toBe(1);
    const paged = await call<{ rows: QaPageResult[] }>(service, 'qa.pages', { archiveId: 'Site', limit: 1, offset: 1 });
    expect(paged.value.rows.map((p) => p.band)).toEqual(['moderate']);
  });

  it('opens one page with its three screenshots as data: URLs', async () => {
    const page = await call<QaPageResult>(service, 'qa.page', { archiveId: 'Site', url: 'http://a/severe/', ts: TS });
    expect(page.value).toMatchObject({ band: 'severe', missingUrls: ['http://a/severe/style.css'] });
    const shots = await call<Record<string, string | null>>(service, 'qa.shots', { archiveId: 'Site', url: 'http://a/severe/', ts: TS });
    for (const k of ['reference', 'replay', 'diff']) expect(shots.value[k]).toMatch(/^data:image\/png;base64,iVBOR/);
    const none = await call<Record<string, string | null>>(service, 'qa.shots', { archiveId: 'Site', url: 'http://a/good/', ts: TS });
    expect(none.value).toEqual({ reference: null, replay: null, diff: null });
  });

  it('keeps a review and its note with the archive, across closing and reopening the app', async () => {
    const r = await call(service, 'qa.review', { archiveId: 'Site', url: 'http://a/severe/', ts: TS, verdict: 'rejected', note: '  stylesheet gone  ' });
    expect(r.value).toEqual({ url: 'http://a/severe/', ts: TS, verdict: 'rejected', note: 'stylesheet gone' });
    await service.close();
    service = open();
    const reviews = await call(service, 'qa.reviews', { archiveId: 'Site' });
    expect(reviews.value).toEqual([{ url: 'http://a/severe/', ts: TS, verdict: 'rejected', note: 'stylesheet gone' }]);
    const rows = await call<{ rows: QaPageResult[] }>(service, 'qa.pages', { archiveId: 'Site', limit: 10 });
    expect(rows.value.rows[0]).toMatchObject({ url: 'http://a/severe/', verdict: 'rejected', note: 'stylesheet gone' });
    // The review is in the exported reports, beside each page's scores.
    const report = await call<{ path: string }>(service, 'export.run', { archiveId: 'Site', format: 'report' });
    expect(report.ok, JSON.stringify(report.error)).toBe(true);
    const csv = fs.readFileSync(path.join(report.value.path, 'qa-pages.csv'), 'utf8').split('\r\n');
    expect(csv[0]).toBe('url,ts,band,reference,screenshotScore,textScore,resourceScore,captured,missing,errors,verdict,note,checkedAt');
    expect(csv[1]).toMatch(/^http:\/\/a\/severe\/,20260101000000,severe,capture,0\.2,1,0\.5,2,2,0,rejected,stylesheet gone,\d{4}-/);
    expect(JSON.parse(fs.readFileSync(path.join(report.value.path, 'qa-pages.json'), 'utf8'))).toHaveLength(3);
    // Clearing both forgets the review.
    await call(service, 'qa.review', { archiveId: 'Site', url: 'http://a/severe/', ts: TS, verdict: null, note: '' });
    expect((await call(service, 'qa.reviews', { archiveId: 'Site' })).value).toEqual([]);
  });

  it('refuses bad payloads at the gate', async () => {
    const bad = [
      ['qa.review', { archiveId: 'Site', url: 'http://a/', ts: TS, verdict: 'maybe', note: null }],
      ['qa.review', { archiveId: 'Site', url: 'http://a/', ts: '2026', verdict: null, note: null }],
      ['qa.pages', { archiveId: 'Site', limit: 0 }],
      ['qa.run', { archiveId: '../x' }],
      ['qa.run', { archiveId: 'Site', tabs: 99 }],
      ['qa.patch', { archiveId: 'Site', extra: 1 }],
    ] as const;
    for (const [name, payload] of bad) expect((await call(service, name, payload)).error?.code, name).toBe('PAYLOAD_INVALID');
    expect((await call(service, 'qa.pages', { archiveId: 'Nope', limit: 5 })).error.code).toBe('LIBRARY_NOT_FOUND');
  });

  it('a run with no engine answer ends with qa.done and leaves nothing running', async () => {
    events.length = 0;
    const r = await call(service, 'qa.run', { archiveId: 'Site' });
    // Whatever the engine answers (an error until it is built, a run summary once it is), the job is over.
    if (!r.ok) expect(events.find((e) => e.name === 'qa.done')?.payload).toMatchObject({ archiveId: 'Site', job: 'qa', ok: false });
    expect((await call(service, 'qa.status', { archiveId: 'Site' })).value).toBeNull();
  }, 120_000);
});

describe('QaJobs', () => {
  it('runs one job per archive, reports progress, and Cancel raises the signal', async () => {
    const events: { name: EventName; payload: Events[EventName] }[] = [];
    let now = 1000;
    const jobs = new QaJobs((name, payload) => events.push({ name, payload }), () => now);
    let release!: () => void;
    let seen: AbortSignal | null = null;
    const first = jobs.run('A', 'patch', async ({ signal, progress }) => {
      seen = signal;
      now = 3000;
      progress({ done: 2, total: 10, url: 'http://a/2' }, 'crawl');
      progress({ done: 1, total: 4, url: 'http://a/1' }, 'qa');
      await new Promise<void>((resolve) => (release = resolve));
      return 'patched';
    });
    await expect(jobs.run('A', 'qa', async () => 'x')).rejects.toMatchObject({ code: 'QA_RUNNING' });
    expect(await jobs.run('B', 'qa', async () => 'other archive')).toBe('other archive');
    expect(jobs.status('A')).toMatchObject({ job: 'patch', phase: 'qa', startedAt: 1000, progress: { done: 1, total: 4 } });
    expect(jobs.cancel('A')).toBe(true);
    expect(seen!.aborted).toBe(true);
    release();
    expect(await first).toBe('patched');
    expect(jobs.status('A')).toBeNull();
    const progress = events.filter((e) => e.name === 'qa.progress' && (e.payload as Events['qa.progress']).archiveId === 'A');
    expect(progress.map((e) => (e.payload as Events['qa.progress']).progress.done)).toEqual([0, 2, 1]);
    expect(events.filter((e) => e.name === 'qa.done').map((e) => e.payload)).toEqual([
      { archiveId: 'B', job: 'qa', ok: true, cancelled: false, message: null },
      { archiveId: 'A', job: 'patch', ok: true, cancelled: true, message: null },
    ]);
    expect(jobs.cancel('A')).toBe(false);
  });
});
