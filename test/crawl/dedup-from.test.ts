/**
 * Deduplication across crawls (--dedup-from): an earlier crawl's payloads become revisits that
 * point at its records; URLs it holds are fetched with If-None-Match / If-Modified-Since, and a
 * 304 is archived as a server-not-modified revisit whose links still lead the crawl on. A CDXJ
 * source works too (digests only, no record ids).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { indexFile } from '../../core/archive/cdxj-index.ts';
import { formatCdxj, sortCdxjLines } from '../../core/archive/cdxj.ts';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.ts';
import { readWarcDir, type ReadRecord } from '../helpers/read-warcs.ts';

const fast = { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0, concurrency: 2 };

describe('--dedup-from', () => {
  let site: FixtureSite;
  let root: string;
  let first: ReadRecord[];
  const conditional: string[] = [];

  beforeAll(async () => {
    const page = (title: string, body: string) => `<!doctype html><title>${title}</title><body>${body}</body>`;
    site = await startFixtureSite({
      routes: {
        '/': (_q, r) => {
          r.writeHead(200, { 'Content-Type': 'text/html' });
          r.end(page('Home', '<a href="/etag.html">etag</a> <a href="/same.html">same</a> <a href="/changes.html">changes</a>'));
        },
        '/etag.html': (q, r) => {
          if (q.headers['if-none-match'] === '"v1"') {
            conditional.push(String(q.headers['if-none-match']));
            r.writeHead(304, { ETag: '"v1"' });
            return r.end();
          }
          r.writeHead(200, { 'Content-Type': 'text/html', ETag: '"v1"', 'Last-Modified': 'Tue, 03 Nov 2026 10:00:00 GMT' });
          r.end(page('Etag', '<a href="/only-from-etag.html">only here</a>'));
        },
        '/only-from-etag.html': (_q, r) => {
          r.writeHead(200, { 'Content-Type': 'text/html' });
          r.end(page('Only', 'reached through the 304 page'));
        },
        '/same.html': (_q, r) => {
          r.writeHead(200, { 'Content-Type': 'text/html' });
          r.end(page('Same', 'never changes'));
        },
        '/changes.html': (_q, r) => {
          r.writeHead(200, { 'Content-Type': 'text/html' });
          r.end(page('Changes', `now ${Date.now()} ${Math.random()}`));
        },
      },
    });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-dedupfrom-'));
    const a = await startCrawl({ dir: path.join(root, 'a'), settings: { ...fast, seeds: [site.origin + '/'] } });
    await a.finished();
    first = await readWarcDir(path.join(root, 'a', 'warcs'));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const resp = (recs: ReadRecord[], p: string) => recs.find((r) => (r.type === 'response' || r.type === 'revisit') && r.targetUri === site.origin + p)!;

  it('turns an earlier crawl into revisits and conditional requests', async () => {
    const b = await startCrawl({ dir: path.join(root, 'b'), settings: { ...fast, seeds: [site.origin + '/'], dedupFrom: [path.join(root, 'a')] } });
    expect(b.startNotes.map((n) => n.code)).toContain('DEDUP_LOADED');
    const final = await b.finished();
    const recs = await readWarcDir(path.join(root, 'b', 'warcs'));

    // 304 → server-not-modified revisit pointing at crawl a's record.
    expect(conditional).toContain('"v1"');
    const etag = resp(recs, '/etag.html');
    expect(etag.type).toBe('revisit');
    expect(etag.status).toBe(304);
    expect(etag.warcHeaders['WARC-Profile']).toBe('http://netpreserve.org/warc/1.1/revisit/server-not-modified');
    expect(etag.warcHeaders['WARC-Refers-To']).toBe(resp(first, '/etag.html').recordId);
    expect(etag.warcHeaders['WARC-Payload-Digest']).toBe(resp(first, '/etag.html').warcHeaders['WARC-Payload-Digest']);
    // Its links came from the earlier capture, so the crawl went on past it.
    expect(resp(recs, '/only-from-etag.html')).toBeDefined();

    // Same payload as in crawl a → identical-payload-digest revisit to crawl a's record.
    const same = resp(recs, '/same.html');
    expect(same.type).toBe('revisit');
    expect(same.warcHeaders['WARC-Profile']).toBe('http://netpreserve.org/warc/1.1/revisit/identical-payload-digest');
    expect(same.warcHeaders['WARC-Refers-To']).toBe(resp(first, '/same.html').recordId);
    expect(same.warcHeaders['WARC-Refers-To-Target-URI']).toBe(site.origin + '/same.html');

    // Changed content is archived in full.
    expect(resp(recs, '/changes.html').type).toBe('response');
    expect(final.duplicateBytes).toBeGreaterThan(0);
    expect(final.novelBytes).toBeGreaterThan(0);
  });

  it('reads a CDXJ file as a source (digests, no record ids)', async () => {
    const warcs = path.join(root, 'a', 'warcs');
    const lines: string[] = [];
    for (const f of fs.readdirSync(warcs)) for await (const e of indexFile(path.join(warcs, f))) lines.push(formatCdxj(e));
    const cdxj = path.join(root, 'a.cdxj');
    fs.writeFileSync(cdxj, sortCdxjLines(lines).join('\n') + '\n');
    const c = await startCrawl({ dir: path.join(root, 'c'), settings: { ...fast, seeds: [site.origin + '/'], dedupFrom: [cdxj] } });
    await c.finished();
    const recs = await readWarcDir(path.join(root, 'c', 'warcs'));
    const same = resp(recs, '/same.html');
    expect(same.type).toBe('revisit');
    expect(same.warcHeaders['WARC-Refers-To']).toBeUndefined();
    expect(same.warcHeaders['WARC-Refers-To-Target-URI']).toBe(site.origin + '/same.html');
  });

  it('rejects a source that is neither a crawl nor a CDXJ file', async () => {
    await expect(startCrawl({ dir: path.join(root, 'd'), settings: { ...fast, seeds: [site.origin + '/'], dedupFrom: [path.join(root, 'nope')] } })).rejects.toMatchObject({
      code: 'SETTINGS_INVALID',
    });
    // Checked before anything is written.
    expect(fs.existsSync(path.join(root, 'd'))).toBe(false);
  });
});
