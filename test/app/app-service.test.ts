import fs from 'node:fs';
import { unfoldRecords } from '../helpers/unfold-records.ts';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import { dispatch } from '../../core/app/gate.ts';
import { replayResponse } from '../../core/app/replay-bridge.ts';
import type { Events, EventName } from '../../core/api/channels.ts';
import type { CrawlSnapshot } from '../../core/api/crawl-snapshot.ts';
import { startFixtureSite, type FixtureSite } from './fixture-site.ts';
import { closeDatabase, openDatabase } from '../../core/storage/open-database.ts';
import { schemaVersion } from '../../core/storage/migrations.ts';

interface Recorded {
  name: EventName;
  payload: unknown;
}

let site: FixtureSite;
let libraryDir: string;
let service: AppService;
const events: Recorded[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
  libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-lib-'));
  service = createAppService({
    libraryDir,
    emit: (name, payload) => events.push({ name, payload }),
  });
});

afterAll(async () => {
  await service?.close();
  await site?.close();
  fs.rmSync(libraryDir, { recursive: true, force: true });
});

const call = <T = unknown>(name: string, payload?: unknown) => dispatch(service.handlers, name, payload) as Promise<{ ok: boolean; value: T; error: { code: string; message: string } }>;

function waitFor<E extends EventName>(name: E, test: (p: Events[E]) => boolean, timeoutMs = 20_000): Promise<Events[E]> {
  const start = events.length;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${name} event in ${timeoutMs} ms`)), timeoutMs);
    const poll = setInterval(() => {
      for (const e of events.slice(0)) {
        if (e.name === name && test(e.payload as Events[E])) {
          clearInterval(poll);
          clearTimeout(timer);
          resolve(e.payload as Events[E]);
          return;
        }
      }
      void start;
    }, 20);
  });
}

describe('the gate', () => {
  it('refuses unknown commands, bad payloads and unknown fields with codes', async () => {
    expect((await call('library.nope')).error.code).toBe('UNKNOWN_COMMAND');
    expect((await call('library.open', { id: '../etc' })).error.code).toBe('PAYLOAD_INVALID');
    const r = await call('crawl.start', { name: 'x', settings: { robotsFile: '/etc/passwd' } });
    expect(r.error.code).toBe('PAYLOAD_INVALID');
    expect(r.error.message).toMatch(/robotsFile/);
    expect((await call('crawl.pause', { id: 'x', extra: 1 })).error.message).toMatch(/extra: unknown field/);
  });

  it('turns core errors into their codes', async () => {
    expect((await call('library.open', { id: 'missing' })).error.code).toBe('LIBRARY_NOT_FOUND');
    expect((await call('crawl.pause', { id: 'missing' })).error.code).toBe('CRAWL_NOT_RUNNING');
  });
});

describe('checks as you type', () => {
  it('checks seeds line by line', async () => {
    const r = await call<{ valid: boolean; seeds: { line: number; url: string | null; error: string | null; duplicate: boolean }[]; urls: string[] }>('crawl.check', {
      seedsText: `# comment\nhttp://Example.com/a\n\nftp://x/\nnot a url\nhttp://example.com/a\n`,
      settings: {},
    });
    expect(r.ok).toBe(true);
    expect(r.value.valid).toBe(false);
    expect(r.value.seeds.map((s) => [s.line, s.url, Boolean(s.error), s.duplicate])).toEqual([
      [2, 'http://example.com/a', false, false],
      [4, null, true, false],
      [5, null, true, false],
      [6, 'http://example.com/a', false, true],
    ]);
    expect(r.value.urls).toEqual(['http://example.com/a']);
  });

  it('reports settings problems by field', async () => {
    const r = await call<{ issues: { field: string }[] }>('crawl.check', {
      seedsText: 'http://example.com/',
      settings: { exclude: ['(unclosed'], robots: 'custom', userAgent: '' },
    });
    const fields = r.value.issues.map((i) => i.field);
    expect(fields).toContain('exclude');
    expect(fields).toContain('customRobots');
    expect(fields).toContain('userAgent');
  });

  it('tests a URL against the scope and names the deciding rule', async () => {
    const base = { seedsText: 'http://example.com/docs/', settings: { exclude: ['/calendar/'] } };
    const inScope = await call<{ decision: { decision: string; rule: string }; deciding: number }>('scope.test', { ...base, url: 'http://example.com/docs/a.html' });
    expect(inScope.value.decision).toMatchObject({ decision: 'ACCEPT', rule: 'scope-prefix' });
    const excluded = await call<{ decision: { decision: string; rule: string } }>('scope.test', { ...base, url: 'http://example.com/docs/calendar/2024' });
    expect(excluded.value.decision).toMatchObject({ decision: 'REJECT', rule: 'exclude-regex' });
    const outside = await call<{ decision: { decision: string } }>('scope.test', { ...base, url: 'example.org/' });
    expect(outside.value.decision.decision).toBe('REJECT');
  });

  it('tests robots.txt under each policy with the matching rule', async () => {
    const robotsText = 'User-agent: *\nDisallow: /private\n\nUser-agent: Googlebot\nAllow: /\nCrawl-delay: 2\n';
    const base = { robotsText, userAgent: 'Trove/1.0', url: '/private/x' };
    const obey = await call<{ allowed: boolean; rule: { pattern: string; line: number } | null }>('robots.test', { ...base, policy: 'obey' });
    expect(obey.value.allowed).toBe(false);
    expect(obey.value.rule).toMatchObject({ pattern: '/private', line: 2 });
    const ignore = await call<{ allowed: boolean }>('robots.test', { ...base, policy: 'ignore' });
    expect(ignore.value.allowed).toBe(true);
    const favored = await call<{ allowed: boolean; agent: string; crawlDelay: number | null }>('robots.test', {
      ...base,
      policy: 'most-favored',
      candidateAgents: ['Googlebot'],
    });
    expect(favored.value).toMatchObject({ allowed: true, agent: 'Googlebot', crawlDelay: 2 });
  });
});

describe('a crawl in a worker, then the library', () => {
  let id = '';
  let final: CrawlSnapshot;

  it('starts a crawl of the fixture site and reports progress', async () => {
    const r = await call<{ id: string }>('crawl.start', {
      name: 'Fixture crawl',
      settings: { seeds: [`${site.origin}/`], politeness: 'fast', delayFactor: 0, minDelayMs: 0, maxDelayMs: 0 },
    });
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    id = r.value.id;
    expect(id).toBe('Fixture crawl');
    const done = await waitFor('crawl.state', (p) => p.id === id && p.state === 'finished');
    expect(done.reason).toBe('frontier-empty');
    await waitFor('library.changed', (p) => p.id === id);
    const snaps = events.filter((e) => e.name === 'crawl.snapshot').map((e) => (e.payload as Events['crawl.snapshot']).snapshot);
    final = snaps.at(-1)!;
    expect(final.downloaded).toBeGreaterThanOrEqual(8);
    expect(final.statusCodes['-9998']).toBe(1); // /private/ precluded by robots
  });

  it('lists the crawl with its state, size and counts', async () => {
    const r = await call<{ id: string; kind: string; state: string; sizeBytes: number; records: number; downloaded: number; running: boolean }[]>('library.list');
    const e = r.value.find((x) => x.id === id)!;
    expect(e).toMatchObject({ kind: 'crawl', state: 'finished', running: false, downloaded: final.downloaded });
    expect(e.sizeBytes).toBeGreaterThan(1000);
    expect(e.records).toBeGreaterThan(10);
  });

  it('lists an entry written by an earlier Trove (older schema) after upgrading its database', async () => {
    const file = path.join(libraryDir, id, 'crawl.sqlite');
    const db = openDatabase(file);
    // As a version-4 build left it: no fixity table (version 5), no folded rows (version 10: a
    // migration before it rebuilds `records` as it knew the table).
    unfoldRecords(db);
    db.exec('DROP TABLE file_fixity');
    db.pragma('user_version = 4');
    closeDatabase(db);
    const r = await call<{ id: string; kind: string; records: number }[]>('library.list');
    expect(r.value.find((x) => x.id === id)).toMatchObject({ kind: 'crawl', records: expect.any(Number) });
    expect(r.value.find((x) => x.id === id)!.records).toBeGreaterThan(10);
    const again = openDatabase(file, { readonly: true });
    expect(again.pragma('user_version', { simple: true })).toBe(schemaVersion());
    closeDatabase(again);
  });

  it('browses the records with keyset pages and finds text', async () => {
    const first = await call<{ rows: { id: number; url: string; type: string }[]; next: number | null; total: number }>('records.query', {
      archiveId: id,
      filter: { type: ['response'] },
      limit: 3,
    });
    expect(first.ok, JSON.stringify(first.error)).toBe(true);
    expect(first.value.rows).toHaveLength(3);
    expect(first.value.total).toBeGreaterThan(3);
    const second = await call<{ rows: { id: number }[] }>('records.query', { archiveId: id, filter: { type: ['response'] }, limit: 3, after: first.value.next });
    expect(second.value.rows[0]!.id).toBeGreaterThan(first.value.rows[2]!.id);
    const hits = await call<{ url: string }[]>('records.search', { archiveId: id, q: 'zebra' });
    expect(hits.value.map((h) => h.url)).toContain(`${site.origin}/articles/first.html`);
  });

  it('shows a record with its headers, siblings and body', async () => {
    const page = await call<{ rows: { id: number }[] }>('records.query', { archiveId: id, filter: { url: `${site.origin}/about.html`, type: ['response'] }, limit: 5 });
    const detail = await call<{ httpStatusLine: string; siblings: { type: string }[]; bodyPreview: { kind: string; text: string } }>('records.detail', {
      archiveId: id,
      id: page.value.rows[0]!.id,
    });
    expect(detail.ok, JSON.stringify(detail.error)).toBe(true);
    expect(detail.value.httpStatusLine).toBe('HTTP/1.1 200 OK');
    expect(detail.value.siblings.map((s) => s.type).sort()).toEqual(['metadata', 'request']);
    expect(detail.value.bodyPreview).toMatchObject({ kind: 'text' });
    expect(detail.value.bodyPreview.text).toContain('quick brown fox');
  });

  it('answers replay from the archive: pages, redirects and misses', async () => {
    const info = await call<{ kind: string; status: number; capture: { ts: string } }>('replay.info', { archiveId: id, url: `${site.origin}/articles/first.html` });
    expect(info.value).toMatchObject({ kind: 'archived', status: 200 });
    expect(info.value.capture.ts).toMatch(/^\d{14}$/);
    const moved = await call<{ status: number; location: string }>('replay.info', { archiveId: id, url: `${site.origin}/old-page` });
    expect(moved.value).toMatchObject({ status: 301, location: `${site.origin}/about.html` });
    const before = site.requests.length;
    const miss = await replayResponse(service.archive(id), { url: `${site.origin}/never-crawled.html` });
    expect(miss.status).toBe(404);
    expect(miss.body.toString()).toContain('Not archived');
    const css = await replayResponse(service.archive(id), { url: `${site.origin}/style.css` });
    expect(css.status).toBe(200);
    expect(css.body.toString()).toContain('rgb(200, 30, 60)');
    expect(site.requests.length).toBe(before);
  });

  it('imports the crawl\'s WARC into a new archive entry', async () => {
    const warcs = path.join(libraryDir, id, 'warcs');
    const files = fs.readdirSync(warcs).map((n) => path.join(warcs, n));
    const r = await call<{ id: string; report: { records: number; problems: unknown[] } }>('library.import', { files, copy: true });
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    expect(r.value.report.problems).toEqual([]);
    expect(r.value.report.records).toBeGreaterThan(10);
    expect(events.some((e) => e.name === 'import.progress')).toBe(true);
    // Imported off the main thread: the archive read afterwards (a fresh connection) has it all.
    const page = await call<{ rows: unknown[] }>('records.query', { archiveId: r.value.id, filter: {}, limit: 5 });
    expect(page.ok, JSON.stringify(page.error)).toBe(true);
    expect(page.value.rows.length).toBeGreaterThan(0);
    // A problem file is reported back from the worker, code and all.
    const missing = await call<{ report: { problems: { code: string }[] } }>('library.import', { files: [path.join(libraryDir, 'no-such.warc.gz')], into: r.value.id, copy: false });
    expect(missing.value.report.problems.map((p) => p.code)).toEqual(['IMPORT_FILE_NOT_FOUND']);
    const list = await call<{ id: string; kind: string; state: string; records: number }[]>('library.list');
    expect(list.value.find((e) => e.id === r.value.id)).toMatchObject({ kind: 'archive', state: 'imported', records: r.value.report.records });
    expect((await call('crawl.resume', { id: r.value.id })).error.code).toBe('NOT_A_CRAWL');
  });

  it('lists an entry as importing while its import runs, and deletes it only once the import is done', async () => {
    const warcs = path.join(libraryDir, id, 'warcs');
    const files = fs.readdirSync(warcs).map((n) => path.join(warcs, n));
    const before = new Set((await call<{ id: string }[]>('library.list')).value.map((e) => e.id));
    // Not awaited: the handler registers the import before its first await, and the worker cannot
    // answer before the calls below (they run without giving it a turn of the event loop).
    const running = call<{ id: string; report: { records: number } }>('library.import', { files, copy: true, name: 'Slow import' });
    const list = await call<{ id: string; name: string; state: string }[]>('library.list');
    const entry = list.value.find((e) => !before.has(e.id))!;
    expect(entry).toMatchObject({ state: 'importing' });
    expect((await call('library.prepareDelete', { id: entry.id })).error.code).toBe('IMPORT_RUNNING');
    expect((await call('library.delete', { id: entry.id, token: 'x' })).error.code).toBe('IMPORT_RUNNING');
    expect((await call('library.import', { files, copy: true, into: entry.id })).error.code).toBe('IMPORT_RUNNING');
    const done = await running;
    expect(done.ok, JSON.stringify(done.error)).toBe(true);
    expect(done.value.report.records).toBeGreaterThan(10);
    const after = await call<{ id: string; state: string }[]>('library.list');
    expect(after.value.find((e) => e.id === entry.id)).toMatchObject({ state: 'imported' });
    const ticket = await call<{ token: string }>('library.prepareDelete', { id: entry.id });
    expect((await call('library.delete', { id: entry.id, token: ticket.value.token })).ok).toBe(true);
    expect(fs.existsSync(path.join(libraryDir, entry.id))).toBe(false);
  });

  it('exports WACZ, CDXJ, a WARC subset and reports into the entry\'s exports folder, off the main thread', async () => {
    events.length = 0;
    const wacz = await call<{ path: string; name: string; bytes: number; summary: { pages: number } }>('export.run', { archiveId: id, format: 'wacz', title: 'Fixture' });
    expect(wacz.ok, JSON.stringify(wacz.error)).toBe(true);
    expect(wacz.value.path).toBe(path.join(libraryDir, id, 'exports', wacz.value.name));
    expect(fs.statSync(wacz.value.path).size).toBe(wacz.value.bytes);
    expect(wacz.value.summary.pages).toBeGreaterThan(3);
    expect(events.some((e) => e.name === 'export.progress')).toBe(true);

    const cdxj = await call<{ path: string; summary: { lines: number } }>('export.run', { archiveId: id, format: 'cdxj' });
    expect(fs.readFileSync(cdxj.value.path, 'utf8').split('\n').filter(Boolean)).toHaveLength(cdxj.value.summary.lines);
    const warc = await call<{ path: string; summary: { captures: number } }>('export.run', { archiveId: id, format: 'warc', filter: { mime: 'image/' } });
    expect(warc.value.summary.captures).toBe(2);
    expect(warc.value.path).toMatch(/\.warc\.gz$/);
    const report = await call<{ path: string; summary: { files: number } }>('export.run', { archiveId: id, format: 'report' });
    expect(fs.readdirSync(report.value.path)).toContain('hosts.csv');

    const list = await call<{ name: string; kind: string }[]>('export.list', { archiveId: id });
    expect(list.value.map((f) => f.kind).sort()).toEqual(['file', 'file', 'file', 'folder']);
  });

  it('deletes only with a fresh confirmation token', async () => {
    expect((await call('library.delete', { id, token: 'guess' })).error.code).toBe('DELETE_NOT_CONFIRMED');
    const ticket = await call<{ token: string; name: string }>('library.prepareDelete', { id });
    expect(ticket.value.name).toBe('Fixture crawl');
    expect((await call('library.delete', { id, token: ticket.value.token })).ok).toBe(true);
    expect(fs.existsSync(path.join(libraryDir, id))).toBe(false);
  });
});

describe('limits, resume and a one-click exclude', () => {
  it('resumes a crawl that stopped at a limit, with a higher limit', async () => {
    const r = await call<{ id: string }>('crawl.start', {
      name: 'Limited',
      settings: { seeds: [`${site.origin}/`], politeness: 'fast', delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, perHost: 1, limitPages: 2 },
    });
    const id = r.value.id;
    const first = await waitFor('crawl.state', (p) => p.id === id && p.state === 'finished');
    expect(first.reason).toBe('limit-pages');
    await waitFor('library.changed', (p) => p.id === id);
    const listed = (await call<{ id: string; state: string; finishReason: string }[]>('library.list')).value.find((e) => e.id === id)!;
    expect(listed).toMatchObject({ state: 'finished', finishReason: 'limit-pages' });

    events.length = 0;
    expect((await call('crawl.resume', { id, settings: { limitPages: 0 } })).ok).toBe(true);
    const second = await waitFor('crawl.state', (p) => p.id === id && p.state === 'finished');
    expect(second.reason).toBe('frontier-empty');
    // The final snapshot is saved when the worker exits, just after it says 'finished': wait for
    // the library.changed that follows that state (an earlier one came with the resume itself).
    const finishedAt = events.findIndex((e) => e.name === 'crawl.state' && (e.payload as { id: string; state: string }).id === id && (e.payload as { state: string }).state === 'finished');
    await vi.waitFor(() => expect(events.slice(finishedAt + 1).some((e) => e.name === 'library.changed' && (e.payload as { id: string }).id === id)).toBe(true), { timeout: 20_000, interval: 50 });
    const snap = await call<{ pages: number }>('crawl.snapshot', { id });
    expect(snap.value.pages).toBeGreaterThan(2);
  });

  it('adds an exclude to a running crawl and carries on', async () => {
    site.latencyMs = 150;
    try {
      events.length = 0;
      const r = await call<{ id: string }>('crawl.start', {
        name: 'Trap test',
        settings: { seeds: [`${site.origin}/`], politeness: 'fast', delayFactor: 0, minDelayMs: 200, maxDelayMs: 200, perHost: 1 },
      });
      const id = r.value.id;
      await waitFor('crawl.snapshot', (p) => p.id === id && p.snapshot.downloaded >= 2);
      const added = await call<{ id: string }>('crawl.addExclude', { id, pattern: '/articles/' });
      expect(added.ok, JSON.stringify(added.error)).toBe(true);
      await waitFor('crawl.state', (p) => p.id === id && p.state === 'finished', 30_000);
      const detail = await call<{ settings: { exclude: string[] }; scopeRules: string[] }>('library.open', { id });
      expect(detail.value.settings.exclude).toEqual(['/articles/']);
      expect(detail.value.scopeRules.join('\n')).toMatch(/exclude-regex: REJECT URLs matching .*articles/);
      expect((await call('crawl.addExclude', { id, pattern: '(' })).error.code).toBe('SCOPE_BAD_REGEX');
    } finally {
      site.latencyMs = 0;
    }
  });
});
