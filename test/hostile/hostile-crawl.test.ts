/**
 * One crawl of the hostile web: an index page linking every path of the hostile fixture server,
 * crawled with small timeouts and caps. Each path must end in its one defined outcome in
 * crawl.log, with the right annotations and the right WARC records (or none), the crawl must
 * finish, the directory must verify, and the process must stay within a modest memory budget.
 *
 * Outcomes decided here (and documented in core/crawl/chain/):
 * - A response that breaks off after its head (idle or whole-fetch timeout, reset, bad chunking)
 *   logs the failure (−4, −3, −50), and the bytes that came are archived as a response record
 *   marked WARC-Truncated (time / disconnect). The prefix is kept as received, even after bad
 *   chunk framing: the record is the evidence of what the server sent. As the transfer coding
 *   cannot be removed from bytes that are not chunked coding, its payload digest covers the
 *   payload as stored (docs/FORMATS.md), which `trove check` and warcio both verify.
 * - Nothing usable as a head (no status line, too many header fields, no answer) → a negative
 *   outcome and no record at all.
 * - A body cut at --max-body-bytes keeps its HTTP status (the cut is our limit, not a failure).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../../core/api/outcome-codes.ts';
import { checkWarcFile, formatProblem } from '../../core/warc/check-warc.ts';
import { BINARY_SIZE, RESET_SENT, binaryBytes } from '../fixtures/hostile-server.ts';
import { startHostileSite, type HostileSite, type HostilePath } from '../fixtures/hostile-site.ts';
import { runCrawl, type CrawlRun, type LogLine } from '../helpers/run-crawl.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';
import { labelledDigest } from '../../core/formats/digest.ts';

const MiB = 1024 * 1024;
const MAX_BODY = 5 * MiB;
const MAX_EXTRACT = 8 * MiB;
const MAX_LINKS = 5000;
const BOMB_MB = 64;
const MAX_HOPS = 5;
/** The crawl runs in this process (with the hostile servers and vitest): peak RSS must stay under this. */
const RSS_BUDGET = 400 * MiB;

let site: HostileSite;
let run: CrawlRun;
let records: ReadRecord[];
let peakRss = 0;
let baseRss = 0;
let elapsedMs = 0;

beforeAll(async () => {
  site = await startHostileSite({ bombMb: BOMB_MB, hugeMb: 16 });
  baseRss = process.memoryUsage().rss;
  peakRss = baseRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 25);
  const t0 = Date.now();
  try {
    run = await runCrawl({
      seeds: [site.seed],
      // The index is on its own server; `any` plus the hop limit bounds the crawl.
      scope: 'any',
      maxHops: MAX_HOPS,
      // The /many-links targets would be 5,000 404s: rejected (and logged) instead.
      exclude: ['/l/\\d+$'],
      // Every hostile path at once, so the slow ones overlap.
      concurrency: 8,
      perHost: 8,
      connectTimeoutS: 2,
      headersTimeoutS: 1,
      // /slow-drip sends a byte a second: never idle for 2 s, so the whole-fetch limit ends it.
      idleTimeoutS: 2,
      fetchTimeoutS: 4,
      maxBodyBytes: MAX_BODY,
      maxExtractBytes: MAX_EXTRACT,
      maxLinksPerDocument: MAX_LINKS,
    });
  } finally {
    clearInterval(sampler);
    elapsedMs = Date.now() - t0;
  }
  records = await run.records();
}, 180_000); // a hang guard only

afterAll(async () => {
  await site?.close();
  run?.cleanup();
});

function line(name: HostilePath): LogLine {
  const l = run.line(site.urls[name]);
  expect(l, `crawl.log line for ${name}`).toBeDefined();
  return l!;
}

function responses(url: string): ReadRecord[] {
  return records.filter((r) => r.targetUri === url && (r.type === 'response' || r.type === 'revisit'));
}

function response(name: HostilePath): ReadRecord {
  const rs = responses(site.urls[name]);
  expect(rs.length, `response records for ${name}`).toBe(1);
  return rs[0]!;
}

describe('a crawl of the hostile site', () => {
  it('finishes, within time and memory, with a directory that verifies', async () => {
    expect(run.final.state).toBe('finished');
    expect(run.final.finishReason).toBe('frontier-empty');
    // The slowest path ends at the 4 s whole-fetch limit and everything overlaps; how long that
    // takes on a loaded machine is printed below, not asserted (bench/reliability-bench.ts).
    const check = await verifyCrawlDir(run.dir);
    expect(check.openFiles).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    expect(check.warcOnly).toEqual([]);
    for (const f of fs.readdirSync(path.join(run.dir, 'warcs'))) {
      const r = await checkWarcFile(path.join(run.dir, 'warcs', f));
      expect(r.problems.map(formatProblem)).toEqual([]);
      expect(r.valid).toBe(true);
    }
    console.log(`hostile crawl: ${elapsedMs} ms, rss ${Math.round(baseRss / MiB)} MB before, peak ${Math.round(peakRss / MiB)} MB`);
    expect(peakRss).toBeLessThan(RSS_BUDGET);
  });

  it('logs exactly one outcome line per URI, one for every hostile path', () => {
    const counts = new Map<string, number>();
    for (const l of run.log) counts.set(l.url, (counts.get(l.url) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    for (const url of Object.values(site.urls)) expect(counts.get(url), url).toBe(1);
    // Nothing beyond the index, its robots.txt/favicon, the hostile paths and the redirect hops.
    const expected = new Set([...Object.values(site.urls), site.seed, `${site.indexOrigin}/robots.txt`, `${site.indexOrigin}/favicon.ico`, `${site.hostile.origin}/robots.txt`]);
    const extra = run.log.map((l) => l.url).filter((u) => !expected.has(u) && !u.startsWith(`${site.hostile.origin}/redirect-chain/`));
    expect(extra).toEqual([]);
  });

  it('well-formed paths are plain captures', () => {
    for (const name of ['ok', 'gzip', 'br', 'chunked', 'dupHeaders', 'http10'] as const) {
      expect(line(name), name).toMatchObject({ status: 200, annotations: [] });
      expect(response(name).warcHeaders['WARC-Truncated'], name).toBeUndefined();
    }
  });

  it('timeouts: -4; bytes that came are archived marked WARC-Truncated: time, no bytes means no record', () => {
    const drip = line('slowDrip');
    expect(drip.status).toBe(Outcome.TIMEOUT);
    expect(drip.annotations).toEqual(['truncated:time', 'FETCH_TIMEOUT_TOTAL']);
    expect(drip.durationMs).toBeGreaterThanOrEqual(3900); // no upper bound: the annotation says which limit ended it
    const rec = response('slowDrip');
    expect(rec.status).toBe(200);
    expect(rec.warcHeaders['WARC-Truncated']).toBe('time');
    expect(rec.payload.toString()).toMatch(/^<\.+$/);

    const headers = line('slowHeaders');
    expect(headers.status).toBe(Outcome.TIMEOUT);
    expect(headers.annotations).toEqual(['FETCH_TIMEOUT_HEADERS']);
    expect(records.filter((r) => r.targetUri === site.urls.slowHeaders)).toEqual([]);
  });

  it('endless and huge bodies: HTTP status kept, cut at --max-body-bytes, WARC-Truncated: length', () => {
    for (const name of ['endless', 'huge'] as const) {
      const l = line(name);
      expect(l.status, name).toBe(200);
      expect(l.annotations, name).toEqual(['truncated:length']);
      const rec = response(name);
      expect(rec.warcHeaders['WARC-Truncated']).toBe('length');
      expect(rec.payload.length).toBe(MAX_BODY);
    }
  });

  it('bad chunking: -50, the prefix as received archived, marked disconnect, payload digest over it as stored', () => {
    const l = line('badChunking');
    expect(l.status).toBe(Outcome.HTTP_PROTOCOL_ERROR);
    expect(l.annotations).toEqual(['truncated:disconnect', 'FETCH_BAD_CHUNKING']);
    const rec = response('badChunking');
    expect(rec.status).toBe(200);
    expect(rec.warcHeaders['WARC-Truncated']).toBe('disconnect');
    expect(rec.payload.toString('latin1')).toMatch(/^5\r\nhello\r\nzz/);
    expect(rec.warcHeaders['WARC-Payload-Digest']).toBe(labelledDigest(rec.payload));
  });

  it('reset mid-body: -3, the received prefix archived, marked disconnect', () => {
    const l = line('resetMidBody');
    expect(l.status).toBe(Outcome.CONNECT_LOST);
    expect(l.annotations).toEqual(['truncated:disconnect', 'FETCH_CONNECTION_LOST']);
    const rec = response('resetMidBody');
    expect(rec.warcHeaders['WARC-Truncated']).toBe('disconnect');
    expect(rec.payload.length).toBeGreaterThan(0);
    expect(rec.payload.length).toBeLessThanOrEqual(RESET_SENT);
    expect(rec.payload.equals(Buffer.alloc(rec.payload.length, 'r'))).toBe(true);
  });

  it('no status line and too many headers: -50, nothing archived', () => {
    expect(line('noStatusLine')).toMatchObject({ status: Outcome.HTTP_PROTOCOL_ERROR, annotations: ['FETCH_BAD_STATUS_LINE'] });
    expect(line('manyHeaders')).toMatchObject({ status: Outcome.HTTP_PROTOCOL_ERROR, annotations: ['FETCH_TOO_MANY_HEADERS'] });
    for (const name of ['noStatusLine', 'manyHeaders'] as const) {
      expect(records.filter((r) => r.targetUri === site.urls[name]), name).toEqual([]);
    }
  });

  it('a redirect loop ends at the seen-set: one fetch, one captured 302', () => {
    expect(line('redirectLoop')).toMatchObject({ status: 302, annotations: [] });
    expect(response('redirectLoop').status).toBe(302);
    expect(site.hostile.requests.filter((r) => r.head.toString('latin1').startsWith('GET /redirect-loop ')).length).toBe(1);
  });

  it('a redirect chain ends at the hop limit, every hop a captured response', () => {
    const start = 20;
    const hops = MAX_HOPS; // L, LR, LRR, LRRR, LRRRR
    for (let i = 0; i < hops; i++) {
      const url = `${site.hostile.origin}/redirect-chain/${start - i}`;
      expect(run.line(url), url).toMatchObject({ status: 302, hopsPath: 'L' + 'R'.repeat(i) });
      expect(responses(url).map((r) => r.status)).toEqual([302]);
    }
    const beyond = `${site.hostile.origin}/redirect-chain/${start - hops}`;
    expect(run.line(beyond)).toBeUndefined();
    expect(run.scopeLog.some((l) => l.includes(` max-hops ${beyond} L${'R'.repeat(hops)} `))).toBe(true);
  });

  it('URLs over --max-url-length are rejected by scope, logged with the rule and counted', () => {
    const rejected = run.scopeLog.filter((l) => l.split(' ')[1] === 'url-length');
    expect(rejected.length).toBe(1);
    expect(rejected[0]).toContain(site.tooLongUrl);
    expect(rejected[0]).toContain(`${site.tooLongUrl.length} characters > maxUrlLength 2083`);
    expect(run.final.scopeRejections['url-length']).toBe(1);
    // The 200 KiB link on /long-url is not even a URL to the extractor: counted on its page, never fetched.
    expect(line('longUrl')).toMatchObject({ status: 200, annotations: ['unparsable-links:1'] });
    expect(site.hostile.requests.filter((r) => r.head.toString('latin1').startsWith('GET /long/')).length).toBe(0);
  });

  it('deep HTML and a page of 300k links do not break extraction; links are capped', () => {
    expect(line('deepHtml')).toMatchObject({ status: 200, mime: 'text/html', annotations: [] });
    const many = line('manyLinks');
    expect(many.status).toBe(200);
    // The body is over --max-body-bytes too: the prefix still gives more links than the cap.
    expect(many.annotations).toEqual(['truncated:length', 'links-capped']);
    const meta = records.find((r) => r.type === 'metadata' && r.targetUri === site.urls.manyLinks)!;
    expect(meta.payload.toString().match(/^outlink: /gm)?.length).toBe(MAX_LINKS);
    expect(run.final.scopeRejections['exclude-regex']).toBe(MAX_LINKS);
  });

  it('binary served as text/html is archived untouched and does not crash extraction', () => {
    const l = line('binaryAsHtml');
    expect(l.status).toBe(200);
    expect(l.annotations).not.toContain('extract-error');
    expect(response('binaryAsHtml').payload.equals(binaryBytes(BINARY_SIZE))).toBe(true);
  });

  it('the gzip bomb: stored as the compressed bytes, extraction stopped at --max-extract-bytes', async () => {
    const l = line('bomb');
    expect(l.status).toBe(200);
    expect(l.annotations).toEqual(['extract-capped']);
    const rec = response('bomb');
    expect(rec.warcHeaders['WARC-Truncated']).toBeUndefined();
    expect(rec.httpHeaders.find(([k]) => k === 'Content-Encoding')?.[1]).toBe('gzip');
    expect(rec.payload.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(rec.payload.length).toBeLessThan(BOMB_MB * 2048); // ~1/1000 of the inflated size
    expect(rec.warcHeaders['WARC-Payload-Digest']).toBe(labelledDigest(rec.payload));
    // The stored bytes still inflate to the whole bomb (counted as they stream, never held).
    let inflated = 0;
    for await (const chunk of Readable.from([rec.payload]).pipe(zlib.createGunzip())) inflated += (chunk as Buffer).length;
    expect(inflated).toBe(BOMB_MB * MiB);
  });
});
