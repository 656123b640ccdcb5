/**
 * `trove recrawl` and `trove changes` on a small site whose pages answer conditional requests:
 * a recrawl is linked to the crawl it repeats (and a recrawl of it to both), asks with the
 * earlier validators, writes the revisit profiles WARC 1.1 names with WARC-Refers-To,
 * -Target-URI and -Date, replays from itself through its chain, and exports a WACZ that replays
 * alone (imported into an empty archive). The change report ignores a timestamp, a CSRF token and
 * a cache-busting query, and finds the page whose text changed.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { defaultRecrawlDir, planRecrawl, seriesBeside, startRecrawl } from '../../core/crawl/recrawl.ts';
import { openArchive, RECRAWL_OF_META } from '../../core/archive/archive-dir.ts';
import { replay } from '../../core/replay/replay.ts';
import { changeReport } from '../../core/export/change-report.ts';
import { normalizePageText, normalizePageUrl } from '../../core/export/change-noise.ts';
import { exportWacz } from '../../core/export/export-wacz.ts';
import { importFiles } from '../../core/archive/import-warc.ts';
import { runCli } from '../../core/cli/main.ts';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';

const fast = { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0, concurrency: 2 };
const NOT_MODIFIED = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';
const IDENTICAL = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';

describe('trove recrawl and trove changes', () => {
  let site: FixtureSite;
  let root: string;
  let version = 1;
  let hits = 0;
  const dirs: string[] = [];
  const conditional: { path: string; inm?: string; ims?: string }[] = [];
  const page = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
  const html = (r: http.ServerResponse, body: string, headers: Record<string, string> = {}) => {
    r.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...headers });
    r.end(body);
  };

  beforeAll(async () => {
    site = await startFixtureSite({
      routes: {
        '/': (_q, r) => html(r, page('Home', `<a href="/etag.html">e</a> <a href="/lastmod.html">l</a> <a href="/plain.html">p</a> <a href="/noisy.html?_=${++hits}">n</a> <a href="/changing.html">c</a>`), { ETag: '"home"' }),
        '/etag.html': (q, r) => {
          conditional.push({ path: '/etag.html', inm: q.headers['if-none-match'] as string | undefined });
          if (q.headers['if-none-match'] === '"e1"') {
            r.writeHead(304, { ETag: '"e1"' });
            return r.end();
          }
          html(r, page('Etag', '<p>Validated by an entity tag.</p><img src="/img/logo.png">'), { ETag: '"e1"' });
        },
        '/lastmod.html': (q, r) => {
          conditional.push({ path: '/lastmod.html', ims: q.headers['if-modified-since'] as string | undefined });
          if (q.headers['if-modified-since'] === 'Tue, 03 Nov 2026 10:00:00 GMT') {
            r.writeHead(304, {});
            return r.end();
          }
          html(r, page('Lastmod', '<p>Validated by a date.</p>'), { 'Last-Modified': 'Tue, 03 Nov 2026 10:00:00 GMT' });
        },
        '/plain.html': (_q, r) => html(r, page('Plain', '<p>No validators, never changes.</p>')),
        '/noisy.html': (_q, r) =>
          html(r, page('Noisy', `<p>Generated on ${new Date(Date.now() + hits * 3_600_000).toUTCString()} at ${String(hits % 24).padStart(2, '0')}:1${hits % 10}.</p><p>Session a8f3k29x7q0m1z5c${hits}b4</p><form><input type="hidden" name="csrf" value="tok${hits}${Math.random()}"></form>`)),
        '/changing.html': (_q, r) => html(r, page('Changing', version === 1 ? '<p>The first version of this text.</p>' : '<p>The second version of this text, longer now.</p>')),
      },
    });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-recrawl-'));
    const first = path.join(root, 'site');
    await (await startCrawl({ dir: first, settings: { ...fast, seeds: [site.origin + '/'] } })).finished();
    dirs.push(first);
    version = 2;
    const b = planRecrawl(first, undefined, new Date(Date.UTC(2026, 11, 5, 8, 0, 0)));
    await (await startRecrawl(b)).finished();
    dirs.push(b.dir);
    const c = planRecrawl(b.dir, undefined, new Date(Date.UTC(2026, 11, 6, 8, 0, 0)));
    await (await startRecrawl(c)).finished();
    dirs.push(c.dir);
  }, 120_000);
  afterAll(async () => {
    await site.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('puts each recrawl in a new directory beside the first, linked to the crawl it repeats', () => {
    expect(path.basename(dirs[1]!)).toBe('site-20261205080000');
    expect(path.basename(dirs[2]!)).toBe('site-20261206080000');
    const c = openArchive(dirs[2]!, { create: false });
    try {
      expect(c.meta(RECRAWL_OF_META)).toBe(dirs[1]);
      expect(c.earlier().map((e) => e.dir)).toEqual([dirs[1], dirs[0]]);
      expect(c.meta<{ seeds: string[] }>('settings')!.seeds).toEqual([site.origin + '/']);
    } finally {
      c.close();
    }
    expect(seriesBeside(dirs[0]!)).toEqual(dirs);
    expect(planRecrawl(dirs[2]!, path.join(root, 'next')).chain).toEqual([dirs[2], dirs[1], dirs[0]]);
  });

  it('asks with the earlier validators and writes the WARC 1.1 revisit profiles with their Refers-To fields', async () => {
    expect(conditional.filter((c) => c.path === '/etag.html').map((c) => c.inm)).toEqual([undefined, '"e1"', '"e1"']);
    expect(conditional.filter((c) => c.path === '/lastmod.html').map((c) => c.ims)).toEqual([undefined, 'Tue, 03 Nov 2026 10:00:00 GMT', 'Tue, 03 Nov 2026 10:00:00 GMT']);
    const first = await readWarcDir(path.join(dirs[0]!, 'warcs'));
    const third = await readWarcDir(path.join(dirs[2]!, 'warcs'));
    const of = (recs: typeof first, p: string) => recs.find((r) => (r.type === 'response' || r.type === 'revisit') && r.targetUri === site.origin + p)!;
    for (const p of ['/etag.html', '/lastmod.html']) {
      const rv = of(third, p);
      expect([p, rv.type, rv.status, rv.warcHeaders['WARC-Profile']]).toEqual([p, 'revisit', 304, NOT_MODIFIED]);
      // The recrawl of a recrawl points past the second crawl's revisit, at the first crawl's response.
      expect(rv.warcHeaders['WARC-Refers-To']).toBe(of(first, p).recordId);
      expect(rv.warcHeaders['WARC-Refers-To-Target-URI']).toBe(site.origin + p);
      expect(rv.warcHeaders['WARC-Refers-To-Date']).toBe(of(first, p).date);
    }
    const plain = of(third, '/plain.html');
    expect([plain.type, plain.status, plain.warcHeaders['WARC-Profile']]).toEqual(['revisit', 200, IDENTICAL]);
    expect(plain.warcHeaders['WARC-Refers-To']).toBe(of(first, '/plain.html').recordId);
    expect(plain.warcHeaders['WARC-Refers-To-Date']).toBe(of(first, '/plain.html').date);
    // By default a same-URL revisit keeps its request record (the conditional request sent, the
    // evidence for a 304), has no metadata record (its links are the original's), and it and its
    // request are written as Heritrix writes records: no WARC-Warcinfo-ID or WARC-Block-Digest.
    const etag = third.filter((r) => r.targetUri === site.origin + '/etag.html');
    expect(etag.map((r) => r.type).sort()).toEqual(['request', 'revisit']);
    const request = etag.find((r) => r.type === 'request')!;
    expect(request.httpHeaders).toContainEqual(['If-None-Match', '"e1"']);
    expect(request.warcHeaders['WARC-Concurrent-To']).toBe(of(third, '/etag.html').recordId);
    for (const r of etag) expect([r.type, r.warcHeaders['WARC-Warcinfo-ID'], r.warcHeaders['WARC-Block-Digest']]).toEqual([r.type, undefined, undefined]);
    // A changed page's response (the second crawl's) keeps both, and its metadata record.
    const changing = (await readWarcDir(path.join(dirs[1]!, 'warcs'))).filter((r) => r.targetUri === site.origin + '/changing.html');
    expect(changing.map((r) => r.type).sort()).toEqual(['metadata', 'request', 'response']);
    for (const r of changing) expect(r.warcHeaders['WARC-Block-Digest'] && r.warcHeaders['WARC-Warcinfo-ID']).toBeTruthy();
  });

  it('replays every page of the last recrawl from it alone, through its chain, as the site serves it', async () => {
    const c = openArchive(dirs[2]!, { create: false });
    try {
      for (const p of ['/etag.html', '/lastmod.html', '/plain.html', '/changing.html', '/img/logo.png']) {
        const live = Buffer.from(await (await fetch(site.origin + p)).arrayBuffer());
        const got = await replay(c, { url: site.origin + p });
        expect([p, got.kind, got.kind === 'archived' && got.status]).toEqual([p, 'archived', 200]);
        if (got.kind === 'archived') expect(got.body.equals(live), p).toBe(true);
      }
    } finally {
      c.close();
    }
    // `trove get` as a user runs it (it writes to the process's stdout).
    const { stdout } = await promisify(execFile)(process.execPath, [path.resolve('bin/trove.js'), 'get', dirs[2]!, site.origin + '/etag.html'], { encoding: 'utf8' });
    expect(stdout).toContain('Validated by an entity tag.');
  });

  it('exports a WACZ of the recrawl that replays alone: the payloads it needs are packed in', async () => {
    const wacz = path.join(root, 'recrawl.wacz');
    const c = openArchive(dirs[2]!, { create: false });
    try {
      const r = await exportWacz(c, wacz);
      expect(r.resources.map((x) => x.path)).toContain('archive/earlier-payloads.warc.gz');
    } finally {
      c.close();
    }
    const alone = path.join(root, 'alone');
    expect((await importFiles(alone, [wacz])).problems).toEqual([]);
    const a = openArchive(alone, { create: false });
    try {
      expect(a.earlier()).toEqual([]);
      for (const p of ['/etag.html', '/lastmod.html', '/plain.html', '/img/logo.png']) {
        const got = await replay(a, { url: site.origin + p });
        expect([p, got.kind, got.kind === 'archived' && got.status]).toEqual([p, 'archived', 200]);
        if (got.kind === 'archived') expect(got.body.length).toBeGreaterThan(0);
      }
    } finally {
      a.close();
    }
  });

  it('reports the changed page, and none whose only differences are a time, a token or a cache-busting query', async () => {
    const a = openArchive(dirs[0]!, { create: false });
    const b = openArchive(dirs[1]!, { create: false });
    try {
      const report = await changeReport({ archive: a }, { archive: b });
      const kinds = Object.fromEntries(report.pages.map((p) => [new URL(p.url).pathname, p.kind]));
      expect(kinds).toEqual({ '/': 'unchanged', '/etag.html': 'unchanged', '/lastmod.html': 'unchanged', '/plain.html': 'unchanged', '/noisy.html': 'unchanged', '/changing.html': 'changed' });
      expect(report.pages.find((p) => p.url.endsWith('/changing.html'))!.textChange).toBeGreaterThan(5);
      // One archive at two times: the first crawl against itself before it existed.
      const none = await changeReport({ archive: a, at: '2001' }, { archive: a });
      expect(none.counts).toEqual({ added: 6, removed: 0, changed: 0, unchanged: 0 });
    } finally {
      a.close();
      b.close();
    }
    expect(normalizePageText('Built Sat, 05 Dec 2026 06:28:44 GMT; token 3f9a0c77e1b2d4f8a9 ok')).toBe(normalizePageText('Built Sun, 06 Dec 2026 07:00:01 GMT; token 77aa00bb11cc22dd33 ok'));
    expect(normalizePageUrl('http://x.test/a.html?_=17&id=3&v=2')).toBe('http://x.test/a.html?id=3');
  });

  it('finds the chain again when the whole series is moved to another folder', async () => {
    const moved = path.join(root, 'moved');
    fs.mkdirSync(moved);
    const there = dirs.map((d) => path.join(moved, path.basename(d)));
    dirs.forEach((d, i) => fs.renameSync(d, there[i]!));
    try {
      const c = openArchive(there[2]!, { create: false });
      try {
        expect(c.earlier().map((e) => e.dir)).toEqual([there[1], there[0]]);
        const got = await replay(c, { url: site.origin + '/etag.html' });
        expect(got.kind === 'archived' && got.body.toString('utf8')).toContain('Validated by an entity tag.');
      } finally {
        c.close();
      }
    } finally {
      there.forEach((d, i) => fs.renameSync(d, dirs[i]!));
    }
  });

  it('trove changes prints the report as text, JSON and CSV, and a page diff', async () => {
    const run = async (...args: string[]) => {
      let out = '';
      const code = await runCli(args, { stdout: { write: (s: string) => (out += s) }, stderr: { write: () => true } });
      return { code, out };
    };
    const text = await run('changes', dirs[0]!, dirs[1]!);
    expect(text.code).toBe(0);
    expect(text.out).toContain(`~ changed   ${site.origin}/changing.html`);
    expect(text.out.trim().split('\n').at(-1)).toBe('1 page changed, 0 new, 0 gone, 5 unchanged');
    const json = JSON.parse((await run('changes', dirs[0]!, dirs[1]!, '--json')).out) as { counts: Record<string, number> };
    expect(json.counts).toEqual({ added: 0, removed: 0, changed: 1, unchanged: 5 });
    const csv = (await run('changes', dirs[0]!, dirs[1]!, '--csv')).out.trim().split('\n');
    expect(csv[0]).toBe('url,change,text_change,a_ts,b_ts');
    expect(csv.filter((l) => l.includes(',changed,'))).toHaveLength(1);
    const diff = (await run('changes', dirs[0]!, dirs[1]!, '--diff', site.origin + '/changing.html')).out;
    expect(diff).toContain('-The first version of this text.');
    expect(diff).toContain('+The second version of this text, longer now.');
    const cron = await run('recrawl', dirs[0]!, '--print-cron', 'weekly');
    expect(cron.out).toMatch(new RegExp(`^0 3 \\* \\* 1 '.*bin/trove\\.js' recrawl '${dirs[0]}' --latest >> '${dirs[0]}\\.recrawl\\.log' 2>&1\\n$`));
    expect((await run('recrawl', dirs[0]!, '--print-cron', 'every tuesday')).code).toBe(2);
  });
});

describe('a recrawl folder of its own', () => {
  it('two runs started in one second get -2, -3 rather than one folder; a run of a run keeps the series name', () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-recrawl-dir-'));
    try {
      const first = path.join(parent, 'Site');
      const now = new Date(Date.UTC(2026, 11, 5, 14, 55, 4));
      const a = defaultRecrawlDir(first, now);
      fs.mkdirSync(a);
      const b = defaultRecrawlDir(first, now);
      fs.mkdirSync(b);
      expect(path.basename(a)).toMatch(/^Site-\d{14}$/);
      expect(b).toBe(`${a}-2`);
      expect(defaultRecrawlDir(b, now)).toBe(`${a}-3`);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});
