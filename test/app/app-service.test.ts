import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import { dispatch } from '../../core/app/gate.ts';
import type { Events, EventName } from '../../core/api/channels.ts';
import type { CrawlSnapshot } from '../../core/api/crawl-snapshot.ts';
import { startFixtureSite, type FixtureSite } from './fixture-site.ts';

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

  it('deletes only with a fresh confirmation token', async () => {
    expect((await call('library.delete', { id, token: 'guess' })).error.code).toBe('DELETE_NOT_CONFIRMED');
    const ticket = await call<{ token: string; name: string }>('library.prepareDelete', { id });
    expect(ticket.value.name).toBe('Fixture crawl');
    expect((await call('library.delete', { id, token: ticket.value.token })).ok).toBe(true);
    expect(fs.existsSync(path.join(libraryDir, id))).toBe(false);
  });
});
