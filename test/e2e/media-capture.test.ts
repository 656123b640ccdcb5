/**
 * Video and audio that play back whole (issue 37, "Measured"), in real Chromium against the
 * ffmpeg media site (test/helpers/media-site-server.ts):
 *
 * - a browser crawl (`--media-renditions used`, the default): warcio reads a whole 200 record of
 *   each media file the page loaded by Range (the 206 partial records stay), with the file's
 *   payload digest, fetched once; for streams, every segment of each rendition the player used
 *   is in the archive (compared with the manifest), and none of a rendition it did not use;
 * - with `--media-renditions all`, every segment of every rendition;
 * - with a small `--max-media-bytes`, the larger file is cut there (`WARC-Truncated: length`),
 *   logged −51 in crawl.log, and the crawl goes on;
 * - each fixture page replayed in Chromium from the default (`used`) archive with the live site
 *   shut (every request paused over CDP and answered by `replayResponse`, as the app's replay
 *   protocol does): played at 16× its `currentTime` reaches its duration, a seek to 80% plays on,
 *   and every request is answered from the archive;
 * - the same in ReplayWeb.page after `trove export --wacz` (the real CLI), hls.js included (its
 *   service worker keeps one variant of the master playlist, which the default capture takes),
 *   with no request it answers with an error; not native HLS, which Chromium cannot play
 *   through a service worker (said where the pages are listed below).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Frame } from 'playwright-core';
import { openArchive, type Archive } from '../../core/archive/archive-dir.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { replayResponse } from '../../core/app/replay-bridge.ts';
import type { CrawlSettings } from '../../core/api/settings.ts';
import { Outcome } from '../../core/api/outcome-codes.ts';
import { parseStreamManifest } from '../../core/formats/media-manifest.ts';
import { hasFfmpeg, MEDIA_SECONDS } from '../helpers/media-fixtures.ts';
import { startMediaSite, MEDIA_PAGES, type MediaSiteServer } from '../helpers/media-site-server.ts';
import { expectWholeFile, renditionsArchived, wholeRecord } from '../helpers/media-records.ts';
import { readWarcDir, type ReadRecord } from '../helpers/read-warcs.ts';
import { CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE } from './harness.ts';
import { repoRoot } from '../helpers/corpus.ts';
import { serveReplayWebPage, type ReplayWebPageServer } from './replaywebpage-server.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

const PAGES = Object.keys(MEDIA_PAGES);
const FILES: Record<string, string> = { '/click.html': 'clip.mp4', '/native-mp4.html': 'clip-nofaststart.mp4', '/webm.html': 'clip.webm', '/audio.html': 'tone.m4a' };
/** A per-file limit between the audio file (~42 kB) and the video ones (~110 kB). */
const SMALL_LIMIT = 60_000;

interface Crawled {
  dir: string;
  records: ReadRecord[];
  log: string[];
  finishReason: string;
}

async function crawl(dir: string, site: MediaSiteServer, pages: string[], settings: Partial<CrawlSettings>): Promise<Crawled> {
  const c = await startCrawl({
    dir,
    settings: {
      seeds: pages.map((p) => site.origin + p),
      scope: 'page',
      concurrency: 4,
      perHost: 2,
      delayFactor: 0,
      minDelayMs: 0,
      maxDelayMs: 0,
      minFreeDiskBytes: 0,
      maxRetries: 0,
      browser: { enabled: true, tabs: 2, path: chromium! },
      ...settings,
    },
  });
  const final = await c.finished();
  return { dir, records: await readWarcDir(path.join(dir, 'warcs')), log: fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').split('\n').filter(Boolean), finishReason: final.finishReason ?? '' };
}

describe.skipIf(!chromium || !hasFfmpeg())('media: whole records, streams, limits, and replay in Chromium', () => {
  let site: MediaSiteServer;
  let browser: Browser;
  let tmp = '';
  let used: Crawled;
  let all: Crawled;
  let limited: Crawled;
  let usedHits: MediaSiteServer['hits'] = [];

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-media-'));
    site = await startMediaSite();
    try {
      used = await crawl(path.join(tmp, 'used'), site, PAGES, {});
      usedHits = [...site.hits];
      // One HLS page is enough here: with `all` the player's choices do not matter.
      all = await crawl(path.join(tmp, 'all'), site, ['/hls-js.html', '/dash.html'], { mediaRenditions: 'all' });
      limited = await crawl(path.join(tmp, 'limited'), site, ['/click.html', '/audio.html'], { maxMediaBytes: SMALL_LIMIT });
    } finally {
      // From here on nothing can come from the live site.
      await site.close();
    }
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: [...CHROMIUM_ARGS, '--autoplay-policy=no-user-gesture-required'] });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('a file the page loaded by Range: its 206 records stay, and one whole 200 record is the file, fetched once', () => {
    expect(used.finishReason).toBe('frontier-empty');
    for (const rel of Object.values(FILES)) {
      const url = `${site.origin}/media/${rel}`;
      expect(usedHits.some((h) => h.url === `/media/${rel}` && h.range), `${rel} was played by Range`).toBe(true);
      expect(used.records.some((r) => r.targetUri === url && r.status === 206), `${rel}: the page's partial record`).toBe(true);
      expectWholeFile(used.records, site.origin, site.fixtures, rel);
      expect(used.records.filter((r) => r.targetUri === url && r.status === 200 && r.type === 'response'), rel).toHaveLength(1);
      // Trove's own GET of the whole file is the one request without Range, and there is one.
      expect(usedHits.filter((h) => h.url === `/media/${rel}` && !h.range), rel).toHaveLength(1);
    }
  });

  it('HLS (hls.js and native): every segment of each rendition the player used and of the one ReplayWeb.page keeps, its subtitles, and the manifests', () => {
    expectWholeFile(used.records, site.origin, site.fixtures, 'hls/master.m3u8');
    expectWholeFile(used.records, site.origin, site.fixtures, 'hls/subs/en.vtt');
    // hls.js starts on low (startLevel 0): a rendition the player used.
    expect(usedHits.some((h) => h.url === '/media/hls/low/seg_000.ts')).toBe(true);
    // high (320×180) is what ReplayWeb.page keeps of the master (the largest up to 1280×720).
    for (const r of ['low', 'high']) {
      expect(renditionsArchived(used.records, site.origin, site.fixtures, 'hls', `hls/${r}/index.m3u8`)[0]!.archived, r).toBe(5);
      for (const f of site.fixtures.files.filter((f) => f.startsWith(`hls/${r}/seg_`))) expectWholeFile(used.records, site.origin, site.fixtures, f);
    }
  });

  it('DASH: every segment of the representation the player used, and of those ReplayWeb.page keeps', () => {
    // The player reads video:0 only; ffmpeg put each stream in an AdaptationSet of its own, and
    // ReplayWeb.page keeps one Representation per set, so all three are kept for it.
    expect(usedHits.some((h) => h.url === '/media/dash/chunk-0-001.m4s')).toBe(true);
    expect(usedHits.some((h) => h.url === '/media/dash/chunk-1-001.m4s' && h.range === null && h.acceptEncoding !== 'identity')).toBe(false);
    const got = renditionsArchived(used.records, site.origin, site.fixtures, 'dash', 'dash/manifest.mpd');
    expect(got).toEqual([
      { id: 'video:0', urls: 6, archived: 6 },
      { id: 'video:1', urls: 6, archived: 6 },
      { id: 'audio:2', urls: 6, archived: 6 },
    ]);
    // Each URL the manifest names, byte for byte, with the file's payload digest.
    const manifest = parseStreamManifest('dash', fs.readFileSync(path.join(site.fixtures.dir, 'dash/manifest.mpd'), 'utf8'), `${site.origin}/media/dash/manifest.mpd`);
    for (const u of manifest.renditions.flatMap((r) => r.urls)) expectWholeFile(used.records, site.origin, site.fixtures, u.slice(`${site.origin}/media/`.length));
  });

  it('--media-renditions all: every segment of every rendition of the HLS stream (hls.js and native) and of the DASH one', () => {
    expect(all.finishReason).toBe('frontier-empty');
    for (const r of ['low', 'high']) expect(renditionsArchived(all.records, site.origin, site.fixtures, 'hls', `hls/${r}/index.m3u8`)[0]!.archived, r).toBe(5);
    expect(renditionsArchived(all.records, site.origin, site.fixtures, 'dash', 'dash/manifest.mpd').map((r) => r.archived)).toEqual([6, 6, 6]);
  });

  it('--max-media-bytes: the larger file is cut at the limit, marked and logged −51; the crawl goes on', () => {
    expect(limited.finishReason).toBe('frontier-empty');
    const url = `${site.origin}/media/clip.mp4`;
    const cut = limited.records.find((r) => r.targetUri === url && r.status === 200);
    expect(cut?.warcHeaders['WARC-Truncated']).toBe('length');
    expect(cut?.payload.length).toBe(SMALL_LIMIT);
    const line = limited.log.find((l) => l.split(/\s+/)[3] === url);
    expect(line, limited.log.join('\n')).toBeDefined();
    expect(Number(line!.split(/\s+/)[1])).toBe(Outcome.OVER_SIZE_LIMIT);
    expect(line).toContain('media-limit:resource');
    // The smaller file, and both pages, are whole.
    expectWholeFile(limited.records, site.origin, site.fixtures, 'tone.m4a');
    for (const p of ['/click.html', '/audio.html']) expect(wholeRecord(limited.records, site.origin + p), p).toBeDefined();
  });

  describe("Trove's replay in Chromium, the live site shut", () => {
    let archive: Archive;
    beforeAll(() => {
      archive = openArchive(used.dir, { create: false });
    });
    afterAll(() => archive?.close());

    it.each(PAGES)('%s: plays to its end at 16×, a seek to 80 percent plays on, every request answered', async (p) => {
      const context = await browser.newContext();
      const answered: { url: string; status: number }[] = [];
      let paused = 0;
      const failed: string[] = [];
      try {
        const page = await context.newPage();
        page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
        const session = await context.newCDPSession(page);
        await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
        session.on('Fetch.requestPaused', (e) => {
          paused++;
          void (async () => {
            const r = await replayResponse(archive, { url: e.request.url, method: e.request.method, headers: Object.entries(e.request.headers) });
            answered.push({ url: e.request.url, status: r.status });
            await session
              .send('Fetch.fulfillRequest', {
                requestId: e.requestId,
                responseCode: r.status,
                ...(r.statusText ? { responsePhrase: r.statusText } : {}),
                responseHeaders: r.headers.map(([name, value]) => ({ name, value })),
                body: r.body.toString('base64'),
              })
              .catch(() => {});
          })();
        });
        await page.goto(site.origin + p, { waitUntil: 'load' });
        const seen = await page.evaluate(PLAY_THROUGH, { seconds: MEDIA_SECONDS });
        const said = `${p} ${JSON.stringify(seen)} answered: ${answered.map((a) => `${a.status} ${a.url}`).join(', ')}`;
        expect(seen.error, said).toBeNull();
        expect(seen.duration, said).toBeGreaterThan(MEDIA_SECONDS - 1);
        expect(seen.endTime, said).toBeGreaterThanOrEqual(seen.duration - 0.05);
        expect(seen.seekedTo, said).toBeCloseTo(seen.duration * 0.8, 0);
        expect(seen.afterSeek, said).toBeGreaterThan(seen.seekedTo + 0.2);
        await page.waitForTimeout(200);
        expect(answered.length, p).toBe(paused);
        expect(answered.filter((a) => a.status >= 400 && !a.url.endsWith('/favicon.ico')), p).toEqual([]);
        expect(failed.filter((f) => !f.includes('favicon')), p).toEqual([]);
      } finally {
        await context.close();
      }
    }, 90_000);
  });

  describe('ReplayWeb.page, after trove export --wacz', () => {
    let server: ReplayWebPageServer;
    let source = '';
    // One browser context for all the pages: ReplayWeb.page's service worker registers and loads
    // the WACZ's index once.
    let context: BrowserContext;
    beforeAll(async () => {
      const wacz = path.join(tmp, 'media.wacz');
      const exported = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'trove.js'), 'export', used.dir, '--wacz', wacz], { encoding: 'utf8' });
      expect(exported.status, exported.stderr).toBe(0);
      server = await serveReplayWebPage();
      source = server.addWacz('media.wacz', wacz);
      context = await browser.newContext();
    }, 120_000);
    afterAll(async () => {
      await context?.close();
      await server?.close();
    });

    // Not the native-HLS page: Chromium's own HLS player (156) cannot read a playlist a service
    // worker answers, and ReplayWeb.page answers every request from its service worker. The same
    // stream that plays from the network fails through a service worker that only passes the
    // responses on (DEMUXER_ERROR_COULD_NOT_PARSE, "HlsDemuxerStatus::Network read error"), so
    // no archive can make it play there; it plays in Trove's replay above, which answers from
    // the browser's network layer. See docs/FORMATS.md.
    it.each(PAGES.filter((p) => p !== '/hls-native.html'))('%s: plays to its end at 16×, a seek to 80 percent plays on, no request answered with an error', async (p) => {
      const bad: string[] = [];
      const page = await context.newPage();
      try {
        // The replay frame's requests, answered by ReplayWeb.page's service worker.
        page.on('response', (r) => {
          if (r.status() >= 400 && r.url().includes('mp_/') && !r.url().endsWith('/favicon.ico')) bad.push(`${r.status()} ${r.url()}`);
        });
        page.on('requestfailed', (r) => {
          if (r.url().includes('mp_/')) bad.push(`failed ${r.url()} ${r.failure()?.errorText}`);
        });
        await page.goto(`${server.origin}/?source=${encodeURIComponent(source)}#view=pages`);
        const url = site.origin + p;
        await page.locator('wr-page-entry').filter({ has: page.locator(`keyword-mark[title="${url}"]`) }).locator('a').first().click({ timeout: 30_000 });
        let frame: Frame | undefined;
        await expect
          .poll(() => (frame = page.frames().find((f) => /\/w\/[^/]+\/.*\d{14}mp_\//.test(f.url()) && f.url().endsWith('mp_/' + url))) !== undefined, { timeout: 30_000 })
          .toBe(true);
        await frame!.waitForFunction(() => document.readyState === 'complete', undefined, { timeout: 30_000 });
        const seen = await frame!.evaluate(PLAY_THROUGH, { seconds: MEDIA_SECONDS });
        const said = `${p} ${JSON.stringify(seen)}`;
        expect(seen.error, said).toBeNull();
        expect(seen.duration, said).toBeGreaterThan(MEDIA_SECONDS - 1);
        expect(seen.endTime, said).toBeGreaterThanOrEqual(seen.duration - 0.05);
        expect(seen.afterSeek, said).toBeGreaterThan(seen.seekedTo + 0.2);
        expect(bad, said).toEqual([]);
      } finally {
        await page.close();
      }
    }, 120_000);
  });
});

/**
 * In the page: wait for the player to have a duration, play muted at 16× until `ended` (or the
 * time budget), then seek to 80% and play on. What it saw, for the test to judge.
 */
const PLAY_THROUGH = async ({ seconds }: { seconds: number }) => {
  const v = document.getElementById('v') as HTMLMediaElement;
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const until = async (ok: () => boolean, ms: number) => {
    for (const end = Date.now() + ms; !ok() && Date.now() < end; ) await wait(50);
  };
  v.muted = true;
  // A player that builds its source by script (the DASH page's MSE player, hls.js) sets it only
  // after fetching its manifest: a play() before that is refused and nothing would ever ask for
  // the next segments.
  await until(() => v.src !== '' || v.querySelector('source') !== null, 20_000);
  // hls.js reads its buffer goal as it goes: the page's 2 s (a short capture leaves segments
  // unplayed) would stall at 16×.
  const hls = (window as unknown as { hls?: { config: Record<string, number> } }).hls;
  if (hls) Object.assign(hls.config, { maxBufferLength: 30, maxMaxBufferLength: 60 });
  // preload="none" waits for a click: this is the click.
  v.click();
  await v.play().catch(() => {});
  v.playbackRate = 16;
  await until(() => v.duration > 0 && Number.isFinite(v.duration), 20_000);
  await until(() => v.ended, seconds * 1000 + 20_000);
  const endTime = v.currentTime;
  const duration = v.duration;
  v.currentTime = duration * 0.8;
  await until(() => !v.seeking, 10_000);
  const seekedTo = v.currentTime;
  v.playbackRate = 1;
  await v.play().catch(() => {});
  await until(() => v.currentTime > seekedTo + 0.5 || v.ended, 10_000);
  return { error: v.error ? v.error.code : null, duration, endTime, seekedTo, afterSeek: v.currentTime };
};
