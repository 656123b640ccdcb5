/**
 * crawl.addExclude through the app's real handlers and real crawl worker: on a running crawl the
 * worker applies it with its own connection (no restart: one run, no CRAWL_RESTARTING), the
 * queued matches are dropped and listed in scope.log, nothing matching is claimed afterwards and
 * the settings keep it; on a stopped crawl it is applied directly; a bad regex is refused with
 * SCOPE_BAD_REGEX. The preview answers before and shows the matches gone after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import type { Events } from '../../core/api/channels.ts';
import type { ExcludeApplied, ExcludePreview } from '../../core/api/app-types.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';
import { closeDatabase, crawlDatabasePath, openDatabase } from '../../core/storage/open-database.ts';
import { getMeta } from '../../core/storage/meta.ts';
import { serviceCalls, type EmittedEvent } from '../helpers/app-service-calls.ts';

let site: TreeSite;
let libraryDir: string;
let service: AppService;
const events: EmittedEvent[] = [];

beforeAll(async () => {
  site = await startTreeSite({ pages: 900, fanout: 3, delayMs: 30, pageBytes: 500 });
  libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-lib-live-exclude-'));
  service = createAppService({ libraryDir, emit: (name, payload) => events.push({ name, payload }) });
});

afterAll(async () => {
  await service?.close();
  await site?.close();
  fs.rmSync(libraryDir, { recursive: true, force: true });
});

const { call, waitFor } = serviceCalls(() => service, events, 60_000);

describe('crawl.addExclude', () => {
  it('adds an exclusion to the running crawl without a restart, then to the stopped crawl', async () => {
    const started = await call<{ id: string }>('crawl.start', {
      name: 'live',
      settings: { seeds: [site.seed], concurrency: 2, perHost: 2, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0 },
    });
    expect(started.ok, JSON.stringify(started.error)).toBe(true);
    const id = started.value.id;
    await waitFor('crawl.snapshot', (p) => p.id === id && p.snapshot.downloaded >= 20 && p.snapshot.queued > 20);
    const pattern = String.raw`/p/\d*[37]\.html$`;
    const re = new RegExp(pattern);

    expect((await call('crawl.addExclude', { id, pattern: '(' })).error.code).toBe('SCOPE_BAD_REGEX');
    expect((await call('crawl.excludePreview', { id, pattern: '[' })).error.code).toBe('SCOPE_BAD_REGEX');
    const preview = await call<ExcludePreview>('crawl.excludePreview', { id, pattern, samples: 3 });
    expect(preview.value.queued.count).toBeGreaterThan(0);

    const added = await call<ExcludeApplied>('crawl.addExclude', { id, pattern });
    expect(added.ok, JSON.stringify(added.error)).toBe(true);
    expect(added.value).toMatchObject({ id, pattern, running: true, added: true });
    expect(added.value.dropped).toBeGreaterThan(0);
    expect(added.value.samples.every((u) => re.test(u))).toBe(true);
    // Nothing matching is left in the queue.
    expect((await call<ExcludePreview>('crawl.excludePreview', { id, pattern })).value.queued.count).toBe(0);

    const final = await waitFor('crawl.state', (p) => p.id === id && (p.state === 'finished' || p.state === 'failed'));
    expect(final).toMatchObject({ state: 'finished', reason: 'frontier-empty' });
    const logs = events.filter((e) => e.name === 'crawl.log').map((e) => e.payload as Events['crawl.log']);
    expect(logs.some((l) => l.code === 'CRAWL_RESTARTING')).toBe(false);
    expect(logs.filter((l) => l.code === 'EXCLUDE_ADDED').length).toBe(1);

    const dir = path.join(libraryDir, id);
    const scope = fs.readFileSync(path.join(dir, 'logs', 'scope.log'), 'utf8').split('\n').filter(Boolean).map((l) => l.split(' '));
    const drops = scope.filter((f) => f[1] === 'exclude-regex' && f[5] === 'dropped');
    expect(drops.length).toBe(added.value.dropped);
    // No matching URI was claimed after the exclusion (at most one per fetch slot was already claimed).
    const crawled = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').split('\n').filter(Boolean).map((l) => l.split(/\s+/));
    expect(crawled.filter((f) => Number(f[1]) > 0 && re.test(f[3]!) && Date.parse(f[0]!) > added.value.appliedAt).length).toBeLessThanOrEqual(2);
    for (const f of drops) expect(site.hits.get(new URL(f[2]!).pathname)).toBeUndefined();

    const db = openDatabase(crawlDatabasePath(dir), { readonly: true });
    expect(getMeta<number>(db, 'runs')).toBe(1);
    expect(getMeta<{ exclude: string[] }>(db, 'settings')!.exclude).toEqual([pattern]);
    closeDatabase(db);
    const snap = await call<{ statusCodes: Record<string, number> }>('crawl.snapshot', { id });
    expect(snap.value.statusCodes['-5000']).toBeGreaterThanOrEqual(added.value.dropped);

    // Stopped: changed directly (nothing queued is left to drop), and a resume keeps it.
    await waitFor('library.changed', (p) => p.id === id);
    const again = await call<ExcludeApplied>('crawl.addExclude', { id, pattern: '/p/5' });
    expect(again.ok, JSON.stringify(again.error)).toBe(true);
    expect(again.value).toMatchObject({ running: false, added: true, dropped: 0 });
    const detail = await call<{ settings: { exclude: string[] } }>('library.open', { id });
    expect(detail.value.settings.exclude).toEqual([pattern, '/p/5']);
  }, 120_000);
});
