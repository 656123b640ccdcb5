/**
 * Browser capture against real Chromium: each page of the browser-site fixture is captured with
 * the behaviors, and every URL the browser asked for (the recorder's list, and the server's own
 * log) must be among the recorded exchanges. The exchanges are then written through the crawl's
 * record builder and WarcWriter and read back with warcio, an independent reader: digests
 * verify and the HTTP headers describe the stored bodies.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { WARCParser } from 'warcio';
import { CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE } from '../e2e/harness.ts';
import { BIG_BODY_BYTES, BROWSER_SITE_DIR, BROWSER_SITE_PAGES, bigBody, startBrowserSite, type BrowserSiteServer } from '../helpers/browser-site-server.ts';
import { captureInBrowser, collectingSink, newWarcWriter, warcSink } from '../helpers/browser-archive.ts';
import { readWarcDir, type ReadRecord } from '../helpers/read-warcs.ts';
import type { PageCapture } from '../../core/browser/capture-page.ts';
import type { RecordedExchange } from '../../core/browser/recorded-exchange.ts';
import { base32 } from '../../core/formats/digest.ts';
import { pageTextRecord, screenshotRecord } from '../../core/browser/page-resource-records.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

const sha1 = (b: Buffer) => 'sha1:' + base32(createHash('sha1').update(b).digest());
const header = (h: [string, string][], name: string) => h.find(([k]) => k.toLowerCase() === name)?.[1] ?? null;
const bodyOf = (x: RecordedExchange) => (Buffer.isBuffer(x.body) ? x.body : fs.readFileSync(x.body.path));
const fixture = (rel: string) => fs.readFileSync(path.join(BROWSER_SITE_DIR, rel));

describe.skipIf(!chromium)('capturePage in Chromium', () => {
  let browser: Browser;
  let site: BrowserSiteServer;
  let tmp: string;
  /** Each page's capture, made on a fixture site of its own (`origin`), whose log is `hits`. */
  const captures = new Map<string, { capture: PageCapture; exchanges: RecordedExchange[]; hits: { method: string; url: string }[]; origin: string }>();
  const ex = (page: string, p: string) => captures.get(page)!.exchanges.filter((x) => new URL(x.url).pathname === p);

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-browser-'));
    site = await startBrowserSite();
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
    // The pages side by side, each in a context of its own and on a site of its own (so the
    // site's log is that page's requests alone): each capture mostly waits on its page.
    await Promise.all(
      BROWSER_SITE_PAGES.map(async (p) => {
        const own = await startBrowserSite();
        try {
          const sink = collectingSink();
          const capture = await captureInBrowser(browser, own.origin + p, { sink, spoolDir: tmp });
          captures.set(p, { capture, exchanges: sink.exchanges, hits: [...own.hits], origin: own.origin });
        } finally {
          await own.close();
        }
      }),
    );
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it.each([...BROWSER_SITE_PAGES])('%s: every URL the browser requested is recorded', (p) => {
    const { capture, exchanges, hits, origin } = captures.get(p)!;
    expect(capture.status).toBe(200);
    expect(capture.requested.length).toBeGreaterThan(0);
    const recorded = new Set(exchanges.map((x) => x.url));
    expect(capture.requested.filter((u) => !recorded.has(u))).toEqual([]);
    // The server's own log: every request that reached it was recorded, method included.
    const recordedReqs = new Set(exchanges.map((x) => `${x.method} ${new URL(x.url).pathname}${new URL(x.url).search}`));
    expect(hits.map((h) => `${h.method} ${h.url}`).filter((h) => !recordedReqs.has(h))).toEqual([]);
    // Exactly one top-level document, the page itself.
    expect(exchanges.filter((x) => x.isPageDocument).map((x) => x.url)).toEqual([origin + p]);
    expect(capture.screenshot?.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(capture.problems).toEqual([]);
    // Nothing but http(s): a data: URL in the page is not an exchange.
    expect(exchanges.every((x) => /^http:/.test(x.url))).toBe(true);
  });

  it('single-page app: content from fetch()ed JSON, a redirect hop by hop, a POST with its body', () => {
    const { capture, origin } = captures.get('/spa.html')!;
    expect(capture.title).toBe('Fixture News');
    expect(capture.text).toContain('Archiving the dynamic web');
    expect(capture.text).toContain('Saved: {"viewed":"spa","count":3}');
    expect(capture.outlinks).toEqual(expect.arrayContaining([`${origin}/articles/dynamic.html`, `${origin}/articles/lazy.html`, `${origin}/articles/fonts.html`]));
    expect(capture.embeds).toEqual(expect.arrayContaining([`${origin}/api/articles.json`, `${origin}/js/spa.js`, `${origin}/img/logo.png`]));
    const [hop] = ex('/spa.html', '/go/logo.png');
    expect(hop!.status).toBe(302);
    expect(header(hop!.responseHeaders, 'location')).toBe('/img/logo.png');
    expect(bodyOf(ex('/spa.html', '/img/logo.png')[0]!)).toEqual(fixture('img/logo.png'));
    const [post] = ex('/spa.html', '/api/echo');
    expect(post!.method).toBe('POST');
    expect(post!.requestBody?.toString()).toBe('{"viewed":"spa","count":3}');
    expect(header(post!.requestHeaders, 'content-type')).toBe('application/json');
    // The JSON went over the wire gzipped; the browser hands over the decoded body.
    const [json] = ex('/spa.html', '/api/articles.json');
    expect(header(json!.responseHeaders, 'content-encoding')).toBe('gzip');
    expect(JSON.parse(bodyOf(json!).toString()).title).toBe('Fixture News');
    // Headers as sent: what Chromium put on the wire (Host, Accept-Encoding).
    expect(header(json!.requestHeaders, 'host')).toBe(new URL(origin).host);
    expect(header(json!.requestHeaders, 'accept-encoding')).toMatch(/gzip/);
    expect(json!.remoteAddress).toBe('127.0.0.1');
  });

  it('lazy images: all six, loaded by scrolling', () => {
    for (let i = 1; i <= 6; i++) expect(bodyOf(ex('/lazy.html', `/img/lazy-${i}.png`)[0]!)).toEqual(fixture(`img/lazy-${i}.png`));
    expect(captures.get('/lazy.html')!.capture.behaviors.scrolls).toBeGreaterThan(3);
  });

  it('infinite scroll: three batches and their images', () => {
    for (let i = 1; i <= 3; i++) {
      expect(ex('/infinite.html', `/api/feed-${i}.json`)).toHaveLength(1);
      expect(ex('/infinite.html', `/img/feed-${i}.png`)).toHaveLength(1);
    }
    expect(captures.get('/infinite.html')!.capture.text).toContain('Batch 3, item 5');
  });

  it('srcset: the width the browser chose', () => {
    const chosen = captures.get('/srcset.html')!.exchanges.filter((x) => /\/img\/w\d+\.png$/.test(x.url));
    expect(chosen.length).toBeGreaterThan(0);
    for (const x of chosen) expect(bodyOf(x)).toEqual(fixture(new URL(x.url).pathname.slice(1)));
  });

  it('web font and CSS background set from script', () => {
    const [font] = ex('/font-bg.html', '/fonts/fixture-mono.ttf');
    expect(font!.resourceType).toBe('Font');
    expect(bodyOf(font!)).toEqual(fixture('fonts/fixture-mono.ttf'));
    expect(ex('/font-bg.html', '/img/bg.png')).toHaveLength(1);
  });

  it('video: the source added by script, and its poster', () => {
    const clips = ex('/video.html', '/media/clip.webm');
    expect(clips.length).toBeGreaterThan(0);
    expect(clips[0]!.resourceType).toBe('Media');
    expect(bodyOf(clips[0]!)).toEqual(fixture('media/clip.webm'));
    expect(ex('/video.html', '/img/poster.png')).toHaveLength(1);
    expect(captures.get('/video.html')!.capture.behaviors.mediaPlayed).toBe(1);
  });

  it('load more: the button pressed until it is gone, <details> opened, the link never followed', () => {
    const { capture, origin } = captures.get('/load-more.html')!;
    expect(capture.behaviors.clicks).toBe(2);
    expect(capture.behaviors.detailsOpened).toBe(1);
    expect(capture.text).toContain('Story 6');
    expect(capture.text).toContain('Hidden notes');
    expect(ex('/load-more.html', '/api/more-2.json')).toHaveLength(1);
    expect(capture.requested.some((u) => u.endsWith('/elsewhere.html'))).toBe(false);
    expect(capture.finalUrl).toBe(`${origin}/load-more.html`);
    expect(capture.outlinks).toEqual([`${origin}/elsewhere.html`]);
  });

  it('written as WARC records and read back with warcio: digests verify, headers describe the stored bodies', async () => {
    const dir = path.join(tmp, 'warcs');
    const writer = newWarcWriter(dir);
    const sink = warcSink(writer);
    // Spooled bodies are removed by the sink (the capture's spool owns them), so copy first.
    for (const { exchanges } of captures.values()) for (const x of exchanges) await sink.exchange({ ...x, body: bodyOf(x) });
    await writer.close();
    const records = await readWarcDir(dir);
    const responses = records.filter((r) => r.type === 'response');
    expect(responses).toHaveLength(sink.exchanges.length);
    for (const r of responses) {
      expect(r.warcHeaders['WARC-Payload-Digest'], r.targetUri!).toBe(sha1(r.payload));
      expect(header(r.httpHeaders, 'content-length'), r.targetUri!).toBe(String(r.payload.length));
      expect(header(r.httpHeaders, 'content-encoding'), r.targetUri!).toBeNull();
      expect(header(r.httpHeaders, 'transfer-encoding'), r.targetUri!).toBeNull();
    }
    // The gzipped JSON: its coding kept under x-orig-, the stored payload the decoded JSON.
    const json = responses.find((r) => r.targetUri!.endsWith('/api/articles.json'))!;
    expect(header(json.httpHeaders, 'x-orig-content-encoding')).toBe('gzip');
    expect(JSON.parse(json.payload.toString()).title).toBe('Fixture News');
    // The 404 favicon was sent chunked: its framing is gone from the stored body, noted as x-orig-.
    const chunked = responses.find((r) => header(r.httpHeaders, 'x-orig-transfer-encoding') === 'chunked');
    if (chunked) expect(chunked.payload.toString()).toBe('not found');
    // Every request record points at its response; the POST's block carries its body.
    const byId = new Map(responses.map((r) => [r.recordId, r] as const));
    const requests = records.filter((r) => r.type === 'request');
    expect(requests).toHaveLength(responses.length);
    for (const q of requests) expect(byId.get(q.concurrentTo[0]!)?.targetUri).toBe(q.targetUri);
    const post = requests.find((q) => q.targetUri!.endsWith('/api/echo'))!;
    expect(post.payload.toString()).toBe('{"viewed":"spa","count":3}');
    await expect(blockDigestsVerify(dir)).resolves.toEqual([]);
  });

  it("the page's screenshot and text as resource records (urn:view:, urn:text:), read back with warcio", async () => {
    const dir = path.join(tmp, 'resource-warcs');
    const writer = newWarcWriter(dir, 'RES');
    const { capture } = captures.get('/load-more.html')!;
    const date = new Date('2026-01-02T03:04:05Z');
    await writer.writeGroup([screenshotRecord(capture.url, date, capture.screenshot!), pageTextRecord(capture.url, date, capture.text)]);
    await writer.close();
    const [shot, text] = (await readWarcDir(dir)).filter((r) => r.type === 'resource');
    expect(shot!.targetUri).toBe(`urn:view:${capture.url}`);
    expect(shot!.warcHeaders['Content-Type']).toBe('image/png');
    expect(shot!.payload.equals(capture.screenshot!)).toBe(true);
    expect(text!.targetUri).toBe(`urn:text:${capture.url}`);
    expect(text!.payload.toString('utf8')).toBe(capture.text);
    await expect(blockDigestsVerify(dir)).resolves.toEqual([]);
  });

  it('large bodies are spooled to disk, and the page still gets them', async () => {
    const sink = collectingSink();
    const capture = await captureInBrowser(browser, `${site.origin}/big.html`, { sink, spoolDir: tmp, maxInMemory: 1024 * 1024 });
    expect(capture.text).toContain(`Fetched ${BIG_BODY_BYTES} and ${BIG_BODY_BYTES} bytes.`);
    const big = bigBody();
    for (const p of ['/big.bin', '/big-chunked.bin']) {
      const x = sink.exchanges.find((e) => new URL(e.url).pathname === p)!;
      expect(Buffer.isBuffer(x.body), p).toBe(false);
      const spooled = x.body as { path: string; size: number };
      expect(spooled.size).toBe(BIG_BODY_BYTES);
      expect(path.dirname(spooled.path)).toBe(tmp);
      expect(fs.readFileSync(spooled.path).equals(big), p).toBe(true);
    }
    // Through the writer (streamed from the spool file) and back.
    const dir = path.join(tmp, 'big-warcs');
    const writer = newWarcWriter(dir, 'BIG');
    const ws = warcSink(writer);
    for (const x of sink.exchanges) await ws.exchange(x);
    await writer.close();
    const got = (await readWarcDir(dir)).filter((r: ReadRecord) => r.type === 'response' && r.targetUri!.endsWith('.bin'));
    expect(got.map((r) => r.payload.equals(big))).toEqual([true, true]);
    for (const r of got) expect(r.warcHeaders['WARC-Payload-Digest']).toBe(sha1(big));
    await expect(blockDigestsVerify(dir)).resolves.toEqual([]);
  }, 120_000);
});

/** Every record's WARC-Block-Digest against its block, as warcio reads it (HTTP not parsed). */
async function blockDigestsVerify(dir: string): Promise<string[]> {
  const bad: string[] = [];
  for (const f of fs.readdirSync(dir).filter((n) => /\.warc(\.gz)?$/.test(n))) {
    const parser = new WARCParser(fs.createReadStream(path.join(dir, f)), { parseHttp: false });
    for await (const record of parser) {
      const block = Buffer.from(await record.readFully(false));
      const stated = record.warcHeader('WARC-Block-Digest');
      if (stated && stated !== sha1(block)) bad.push(`${record.warcType} ${record.warcTargetURI}`);
    }
  }
  return bad;
}
