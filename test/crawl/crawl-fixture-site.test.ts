import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST } from '../helpers/run-crawl.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import type { CrawlSnapshot } from '../../core/api/crawl-snapshot.ts';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.ts';
import { readWarcDir, type ReadRecord } from '../helpers/read-warcs.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { createCaptureIndex } from '../../core/archive/capture-index.ts';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function sha1b32(buf: Buffer): string {
  const h = crypto.createHash('sha1').update(buf).digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of h) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return 'sha1:' + out;
}

describe('a full crawl of the fixture site', () => {
  let site: FixtureSite;
  let dir: string;
  let final: CrawlSnapshot;
  let records: ReadRecord[];
  let log: string[];

  beforeAll(async () => {
    site = await startFixtureSite();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-crawl-'));
    const crawl = await startCrawl({
      dir,
      settings: {
        ...FAST,
        name: 'fixture',
        seeds: [site.origin + '/'],
      },
    });
    final = await crawl.finished();
    records = await readWarcDir(path.join(dir, 'warcs'));
    log = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').trim().split('\n');
  }, 60_000);

  afterAll(async () => {
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const fetched = (p: string) => site.requests.some((r) => r.path === p && r.host.startsWith('127.0.0.1'));
  const responseFor = (url: string) => records.find((r) => (r.type === 'response' || r.type === 'revisit') && r.targetUri === url);

  it('finishes because the frontier is empty', () => {
    expect(final.state).toBe('finished');
    expect(final.finishReason).toBe('frontier-empty');
    expect(final.queued).toBe(0);
  });

  it('fetches robots.txt first and archives it', () => {
    const first = site.requests.filter((r) => r.host.startsWith('127.0.0.1'))[0]!;
    expect(first.path).toBe('/robots.txt');
    expect(responseFor(site.origin + '/robots.txt')).toBeDefined();
  });

  it('follows every link kind and the transclusions, and nothing out of scope', () => {
    for (const p of [
      '/a.html', '/b.html', '/deep/2.html', '/img/logo.png', '/img/logo-2x.png', '/img/logo-3x.png', '/app.js', '/frame.html',
      '/area.html', '/img/bg.png', '/search', '/style.css', '/more.css', '/img/css-bg.png', '/font.woff', '/favicon.ico',
      '/chain/3', '/from-gzip.html', '/from-br.html', '/from-chunked.html', '/from-broken.html', '/img/nofollow-img.png',
    ]) {
      expect(fetched(p), p).toBe(true);
    }
    // An image on another host is an embed of an in-scope page: captured. A link there is not.
    expect(site.requests.some((r) => r.host.startsWith('localhost') && r.path === '/cdn/photo.png')).toBe(true);
    expect(site.requests.some((r) => r.path === '/offsite.html')).toBe(false);
    expect(fetched('/should-not-follow.html')).toBe(false);
    expect(fetched('/private/secret.html')).toBe(false);
    expect(final.scopeRejections).toBeTruthy();
  });

  it('logs exactly one outcome per URI, with robots preclusion as -9998', () => {
    const urls = log.map((l) => l.split(/\s+/)[3]);
    expect(new Set(urls).size).toBe(urls.length);
    const secret = log.find((l) => l.includes('/private/secret.html'))!;
    expect(secret.split(/\s+/)[1]).toBe('-9998');
    expect(log.find((l) => l.includes(' /missing') || l.includes('/missing '))?.split(/\s+/)[1]).toBe('404');
    expect(log.find((l) => l.includes('/error '))?.split(/\s+/)[1]).toBe('500');
  });

  it('writes warcinfo first, then response → request → metadata groups linked by WARC-Concurrent-To', () => {
    expect(records[0]!.type).toBe('warcinfo');
    expect(records[0]!.payload.toString()).toContain('isPartOf: fixture');
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      if (r.type !== 'response' && r.type !== 'revisit') continue;
      const req = records[i + 1]!;
      const meta = records[i + 2]!;
      expect(req.type).toBe('request');
      expect(req.concurrentTo).toEqual([r.recordId]);
      expect(meta.type).toBe('metadata');
      expect(meta.concurrentTo).toEqual([r.recordId]);
      expect(r.warcHeaders['WARC-IP-Address']).toBe('127.0.0.1');
      expect(r.warcHeaders['WARC-Warcinfo-ID']).toBe(records[0]!.recordId);
    }
  });

  it('keeps the bytes the server sent: digests recomputed from them, content-encoding kept', () => {
    for (const p of ['/a.html', '/gzip.html', '/br.html', '/app.js', '/font.woff', '/latin1.html']) {
      const r = responseFor(site.origin + p)!;
      const sent = site.sentBodies.get(p)!;
      expect(r.payload.equals(sent), p).toBe(true);
      expect(r.warcHeaders['WARC-Payload-Digest']).toBe(sha1b32(sent));
    }
    const gz = responseFor(site.origin + '/gzip.html')!;
    expect(gz.httpHeaders.find(([k]) => k.toLowerCase() === 'content-encoding')?.[1]).toBe('gzip');
    expect(gz.payload[0]).toBe(0x1f);
  });

  it('keeps duplicate headers in wire order and case', () => {
    const r = responseFor(site.origin + '/dup-headers')!;
    const cookies = r.httpHeaders.filter(([k]) => k.toLowerCase() === 'set-cookie').map(([, v]) => v);
    expect(cookies).toEqual(['a=1', 'b=2']);
  });

  it('writes an identical payload as a revisit pointing at the original', () => {
    const a = responseFor(site.origin + '/dup.html')!;
    const b = responseFor(site.origin + '/dup-copy.html')!;
    const [orig, dup] = a.type === 'response' ? [a, b] : [b, a];
    expect(orig.type).toBe('response');
    expect(dup.type).toBe('revisit');
    expect(dup.warcHeaders['WARC-Profile']).toBe('http://netpreserve.org/warc/1.1/revisit/identical-payload-digest');
    expect(dup.warcHeaders['WARC-Refers-To']).toBe(orig.recordId);
    expect(dup.warcHeaders['WARC-Refers-To-Target-URI']).toBe(orig.targetUri);
    expect(final.duplicateBytes).toBeGreaterThan(0);
  });

  it('records the outlinks and hops in the metadata record', () => {
    const i = records.findIndex((r) => r.type === 'response' && r.targetUri === site.origin + '/');
    const meta = records[i + 2]!.payload.toString();
    expect(meta).toContain(`outlink: ${site.origin}/a.html L a/@href`);
    expect(meta).toContain('hopsFromSeed: -');
    expect(meta).toMatch(/outlink: \S+\/img\/logo\.png E img\/@src/);
  });

  it('archives non-200 responses too', () => {
    expect(responseFor(site.origin + '/missing')?.status).toBe(404);
    expect(responseFor(site.origin + '/error')?.status).toBe(500);
    expect(responseFor(site.origin + '/redirect')?.status).toBe(301);
  });

  it('indexes every record it wrote in the crawl database, at the right offsets', () => {
    const db = openDatabase(path.join(dir, 'crawl.sqlite'));
    try {
      // Every record by its id, those folded into their capture's row included (capture-folds.ts).
      const ix = createCaptureIndex(db);
      const all = Array.from({ length: ix.count() }, (_, i) => ix.byId(i + 1));
      const rows = all.filter((r) => r !== null && r.recordType !== 'warcinfo');
      expect(all.every((r) => r !== null)).toBe(true);
      const fromWarc = records.filter((r) => r.type !== 'warcinfo');
      expect(rows.length).toBe(fromWarc.length);
      const byId = new Map(fromWarc.map((r) => [r.recordId, r]));
      for (const row of rows) expect(byId.get(row!.recordId!)?.offset, row!.recordId!).toBe(row!.offset);
    } finally {
      db.close();
    }
  });
});
