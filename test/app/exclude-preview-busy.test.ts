/**
 * Issue 33 item 5: opening the exclusion preview on a running crawl must never disturb the
 * crawl's writes nor fail on a busy database. A real crawl runs in the app's real crawl worker
 * (createAppService, as the app starts it) against a loopback site of 3,000 pages answering in
 * 20 ms, with its group commits writing at full speed, while the preview is asked for 50 times
 * through the app's own handlers (every other one from a freshly opened app over the same
 * library, whose first look at the crawl is the one the old code made through a write connection). The crawl must finish `done` (frontier-empty, not failed with
 * "database is locked") and every preview must answer. Then, deterministically: with a writer
 * holding the database beyond any busy timeout, the preview and a host's queue still answer
 * (the old code failed both after 5 s with "Cannot open database …: database is locked", the
 * message the dialog showed in issue 33).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import { dispatch } from '../../core/app/gate.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';
import { closeDatabase, crawlDatabasePath, openDatabase } from '../../core/storage/open-database.ts';
import { serviceCalls, type EmittedEvent } from '../helpers/app-service-calls.ts';

let site: TreeSite;
let libraryDir: string;
let service: AppService;
let crawlId = '';
const events: EmittedEvent[] = [];

beforeAll(async () => {
  site = await startTreeSite({ pages: 3000, delayMs: 20, pageBytes: 600 });
  libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-lib-busy-'));
  service = createAppService({ libraryDir, emit: (name, payload) => events.push({ name, payload }) });
});

afterAll(async () => {
  await service?.close();
  await site?.close();
  fs.rmSync(libraryDir, { recursive: true, force: true });
});

const { call, waitFor } = serviceCalls(() => service, events, 120_000);

describe('the exclusion preview on a crawl writing at full speed', () => {
  it('answers 50 times and the crawl finishes done', async () => {
    const started = await call<{ id: string }>('crawl.start', {
      name: 'busy',
      settings: { seeds: [site.seed], concurrency: 8, perHost: 8, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0 },
    });
    expect(started.ok, JSON.stringify(started.error)).toBe(true);
    const id = started.value.id;
    // Previews while the crawl is under way: the queue is full and the group commits run.
    await waitFor('crawl.snapshot', (p) => p.id === id && p.snapshot.downloaded >= 20 && p.snapshot.queued > 50);
    const answers: { ok: boolean; error?: { code: string; message: string }; queued?: number }[] = [];
    for (let i = 0; i < 50; i++) {
      // Every other preview comes from a freshly opened app over the same library (the dialog
      // opened in a new window or session): its first look at the crawl, which the old code
      // made through a write connection of its own (migrations in an IMMEDIATE transaction).
      const viewer = i % 2 === 0 ? service : createAppService({ libraryDir, emit: () => {} });
      const r = (await dispatch(viewer.handlers, 'crawl.excludePreview', { id, pattern: `/p/\\d*${i % 10}\\.html`, samples: 5 })) as {
        ok: boolean;
        value: { queued: { count: number } };
        error: { code: string; message: string };
      };
      if (viewer !== service) await viewer.close();
      answers.push(r.ok ? { ok: true, queued: r.value.queued.count } : { ok: false, error: r.error });
      // Let the crawl's thread write between two previews (a few of its group commits).
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const final = await waitFor('crawl.state', (p) => p.id === id && (p.state === 'finished' || p.state === 'failed'));
    expect(answers.filter((a) => !a.ok)).toEqual([]);
    expect(answers.length).toBe(50);
    expect(answers.some((a) => (a.queued ?? 0) > 0)).toBe(true);
    expect({ state: final.state, reason: final.reason, message: final.message }).toEqual({ state: 'finished', reason: 'frontier-empty', message: null });
    const snap = await call<{ downloaded: number }>('crawl.snapshot', { id });
    expect(snap.value.downloaded).toBeGreaterThanOrEqual(3000);
    crawlId = id;
  }, 180_000);

  it('answers at once while a writer holds the database longer than any busy timeout', async () => {
    // The crawl's group of writes holds the write lock nearly all the time; here a connection
    // holds it outright, so a preview that needs it (the old write open, whose migration check
    // runs in an IMMEDIATE transaction) gives up after its 5 s busy timeout, every time.
    const writer = openDatabase(crawlDatabasePath(path.join(libraryDir, crawlId)));
    writer.prepare('BEGIN IMMEDIATE').run();
    const viewer = createAppService({ libraryDir, emit: () => {} });
    try {
      const r = (await dispatch(viewer.handlers, 'crawl.excludePreview', { id: crawlId, pattern: '/p/1', samples: 3 })) as { ok: boolean; value: { captured: { count: number } }; error: unknown };
      expect(r.ok, JSON.stringify(r.error)).toBe(true);
      expect(r.value.captured.count).toBeGreaterThan(0);
      // The monitor's other look at the database (a host's queue) opens the archive for writing:
      // an up-to-date database takes no lock to open.
      const q = (await dispatch(viewer.handlers, 'crawl.queued', { id: crawlId, queue: new URL(site.seed).host, limit: 5 })) as { ok: boolean; error: unknown };
      expect(q.ok, JSON.stringify(q.error)).toBe(true);
    } finally {
      writer.prepare('ROLLBACK').run();
      closeDatabase(writer);
      await viewer.close();
    }
  }, 30_000);
});
