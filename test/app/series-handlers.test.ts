/**
 * A crawl over time through the app's commands (`series.*`, the one gate): "Crawl again" makes a
 * recrawl entry beside the crawl, the series lists both with the change summary, a page compares
 * side by side, a schedule (on an injected clock) starts a recrawl of the latest crawl when it
 * falls due, and a bad schedule is refused with its code.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import type { SchedulerClock } from '../../core/app/recrawl-scheduler.ts';
import type { PageCompare, SeriesDetail } from '../../core/api/series-types.ts';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.ts';
import { serviceCalls, type EmittedEvent } from '../helpers/app-service-calls.ts';

/** A clock whose time the test sets; its timers fire when the test says. */
class ManualClock implements SchedulerClock {
  t = new Date(2026, 11, 5, 0, 3).getTime();
  timers = new Map<number, () => void>();
  n = 0;
  now = () => this.t;
  setTimeout = (fn: () => void) => {
    this.timers.set(++this.n, fn);
    return this.n;
  };
  clearTimeout = (h: unknown) => void this.timers.delete(h as number);
  fire(t: number): void {
    this.t = t;
    const fns = [...this.timers.values()];
    this.timers.clear();
    for (const f of fns) f();
  }
}

describe('series commands', () => {
  let site: FixtureSite;
  let libraryDir: string;
  let service: AppService;
  let version = 1;
  const clock = new ManualClock();
  const events: EmittedEvent[] = [];
  const { call, waitFor } = serviceCalls(() => service, events);
  const html = (r: http.ServerResponse, body: string) => {
    r.writeHead(200, { 'Content-Type': 'text/html', ETag: `"${body.length}"` });
    r.end(body);
  };

  beforeAll(async () => {
    site = await startFixtureSite({
      routes: {
        '/': (_q, r) => html(r, '<!doctype html><title>Home</title><a href="/news.html">news</a> <a href="/about.html">about</a>'),
        '/news.html': (_q, r) => html(r, `<!doctype html><title>News</title><p>${version === 1 ? 'Nothing happened today.' : 'Something happened today, at last.'}</p>`),
        '/about.html': (_q, r) => html(r, '<!doctype html><title>About</title><p>About this site.</p>'),
      },
    });
    libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-series-'));
    service = createAppService({ libraryDir, emit: (name, payload) => events.push({ name, payload }), scheduleClock: clock });
    const r = await call<{ id: string }>('crawl.start', { name: 'Site', settings: { seeds: [`${site.origin}/`], politeness: 'fast', delayFactor: 0, minDelayMs: 0, maxDelayMs: 0 } });
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    await waitFor('crawl.state', (p) => p.id === 'Site' && p.state === 'finished');
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await site?.close();
    fs.rmSync(libraryDir, { recursive: true, force: true });
  });

  let second = '';
  it('crawls again into a new entry of the series and sums up what changed', async () => {
    version = 2;
    const r = await call<{ id: string }>('series.recrawl', { id: 'Site' });
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    second = r.value.id;
    expect(second).toMatch(/^Site-\d{14}$/);
    await waitFor('crawl.state', (p) => p.id === second && p.state === 'finished');
    await service.handlers['crawl.snapshot']({ id: second });
    const d = await call<SeriesDetail>('series.detail', { id: second });
    expect(d.ok, JSON.stringify(d.error)).toBe(true);
    expect(d.value.id).toBe('Site');
    expect(d.value.crawls.map((c) => c.id)).toEqual(['Site', second]);
    expect(d.value.crawls[0]!.summary).toBeNull();
    expect(d.value.crawls[1]!.summary).toBe('1 page changed, 0 new, 0 gone');
  }, 60_000);

  it('compares a page at two crawls of the series', async () => {
    const r = await call<PageCompare>('series.compare', { url: `${site.origin}/news.html`, a: { archiveId: 'Site' }, b: { archiveId: second } });
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    expect(r.value.a!.text).toContain('Nothing happened today.');
    expect(r.value.b!.text).toContain('Something happened today, at last.');
    expect(r.value.parts.filter((p) => p.removed).map((p) => p.value.trim())).toContain('Nothing happened today.');
    expect(r.value.textChange).toBeGreaterThan(10);
    expect(r.value.a!.screenshot).toBeNull();
  });

  it('runs the series again when its schedule falls due, and refuses a schedule croner cannot read', async () => {
    const bad = await call('series.setSchedule', { id: 'Site', spec: 'every tuesday' });
    expect([bad.ok, bad.error.code]).toEqual([false, 'SCHEDULE_INVALID']);
    const set = await call<{ next: number }>('series.setSchedule', { id: second, spec: '*/10 * * * *' });
    expect(set.ok, JSON.stringify(set.error)).toBe(true);
    expect(set.value.next).toBe(new Date(2026, 11, 5, 0, 10).getTime());
    // The scheduler arms its timer on the injected clock once the schedule is stored: fire it only then.
    await expect.poll(() => clock.timers.size).toBeGreaterThan(0);
    clock.fire(new Date(2026, 11, 5, 0, 10).getTime());
    await expect.poll(async () => (await call<SeriesDetail>('series.detail', { id: 'Site' })).value.events.map((e) => e.kind), { timeout: 60_000 }).toContain('finished');
    const d = (await call<SeriesDetail>('series.detail', { id: 'Site' })).value;
    expect(d.crawls).toHaveLength(3);
    expect(d.events.map((e) => e.kind)).toEqual(['finished', 'started']);
    expect(d.events[0]!.runId).toBe(d.crawls[2]!.id);
    expect(d.crawls[2]!.summary).toBe('0 pages changed, 0 new, 0 gone');
    expect(d.schedule!.spec).toBe('*/10 * * * *');
  }, 90_000);
});
