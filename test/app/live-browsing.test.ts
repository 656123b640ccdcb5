// Live browsing (issue #16 item 2): while a crawl writes its WARC as NAME.warc.gz.open, the app
// reads its records and replays its pages through the committed index rows. Before the fix:
// `cannot open …/TROVE-…warc.gz: ENOENT`. The crawl is paused (not timed) so the file is still
// open when the test reads; warcio (an independent reader) reads the same record from the
// `.open` file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import { replayResponse } from '../../core/app/replay-bridge.ts';
import { REPLAY_GUARD_SCRIPT } from '../../core/replay/replay-policy.ts';
import type { RecordSummary } from '../../core/api/app-types.ts';
import { startPacedSite, type PacedSite } from '../fixtures/paced-site.ts';
import { readWarcFile } from '../helpers/read-warcs.ts';

let site: PacedSite;
let libraryDir: string;
let service: AppService;

beforeAll(async () => {
  site = await startPacedSite({ pages: 40, delayMs: 30 });
  libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-live-'));
  service = createAppService({ libraryDir, emit: () => {} });
});

afterAll(async () => {
  await service?.close();
  await site?.close();
  fs.rmSync(libraryDir, { recursive: true, force: true });
});

async function until<T>(f: () => Promise<T | null> | T | null, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await f();
    if (v !== null) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('records and replay of a crawl still writing its WARC', () => {
  it('reads a record and replays a page from the .open file, and again after it is closed', async () => {
    const h = service.handlers;
    const { id } = await h['crawl.start']({
      name: 'live',
      settings: { seeds: [`${site.origin}/`], politeness: 'fast', delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, perHost: 1, concurrency: 1 },
    });
    const responses = () => h['records.query']({ archiveId: id, filter: { type: ['response'], mime: 'text/html' }, limit: 100 });
    await until(async () => ((await responses()).rows.length >= 3 ? true : null), 'three HTML responses');
    await h['crawl.pause']({ id });

    const warcs = path.join(libraryDir, id, 'warcs');
    const open = fs.readdirSync(warcs).filter((n) => n.endsWith('.warc.gz.open'));
    expect(open).toHaveLength(1);
    expect(fs.readdirSync(warcs).filter((n) => n.endsWith('.warc.gz'))).toEqual([]);

    const rows = (await responses()).rows;
    const row = rows.find((r: RecordSummary) => (r.url ?? '').includes('/p/')) ?? rows[0]!;
    const detail = await h['records.detail']({ archiveId: id, id: row.id });
    expect(detail.row.url).toBe(row.url);
    expect(detail.httpStatusLine).toMatch(/^HTTP\/1\.1 200/);

    const replayed = await replayResponse(service.archive(id), { url: row.url! });
    expect(replayed.status).toBe(200);
    expect(replayed.info.kind).toBe('archived');

    // The independent reader finds the same record in the .open file, with the same payload.
    const read = await readWarcFile(path.join(warcs, open[0]!));
    const same = read.find((r) => r.recordId === detail.row.recordId)!;
    expect(same).toBeDefined();
    expect(replayed.body.toString('utf8').replace(REPLAY_GUARD_SCRIPT, '')).toBe(same.payload.toString('utf8'));

    // Finished: the file has its final name and the same row still reads.
    await h['crawl.stop']({ id, now: true });
    await until(() => (fs.readdirSync(warcs).some((n) => n.endsWith('.warc.gz')) ? true : null), 'the closed WARC');
    expect(fs.readdirSync(warcs).filter((n) => n.endsWith('.open'))).toEqual([]);
    const after = await h['records.detail']({ archiveId: id, id: row.id });
    expect(after.row.recordId).toBe(detail.row.recordId);
  }, 60_000);
});
