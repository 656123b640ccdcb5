/**
 * QA reads a replayed page only when it is finished, whatever the machine's load (issue 34): the
 * page's script waits for data, then, two animation frames later, sets its title and adds an
 * image. Replay's answers to the data and to the image are held (ReplayAnswers, through which
 * every request of a QA tab is answered, wrapped to wait for the test) until the test releases
 * them, so no wall-clock window decides anything: the page is not scored while either is pending,
 * and once both are answered it is scored once, good, with the title and the image the script
 * added in what QA read (core/qa/qa-replay-tab.ts, its done decision).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { PNG } from 'pngjs';
import { openArchive, type Archive } from '../../core/archive/archive-dir.ts';
import { qaShotPath } from '../../core/archive/qa-store.ts';
import { launchQaBrowser } from '../../core/qa/qa-browser.ts';
import { selectPages } from '../../core/qa/qa-pages.ts';
import { ReplayAnswers, type ReplayAnswer } from '../../core/qa/qa-replay-answers.ts';
import { QA_SHOT_SCALE, QaTab } from '../../core/qa/qa-replay-tab.ts';
import { QA_VIEWPORT, scorePage } from '../../core/qa/qa-run.ts';
import type { ReplayHttpRequest } from '../../core/replay/replay-response.ts';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';
import { findChromium, NO_CHROMIUM_MESSAGE } from '../e2e/harness.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

const COLOUR = [200, 30, 60];

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Waiting</title>
<style>body { margin: 0; background: #fff; } #late { position: absolute; left: 0; top: 0; width: 200px; height: 200px; }</style></head>
<body><p>The data comes later.</p><script>
fetch('/data.json').then((r) => r.json()).then((d) => requestAnimationFrame(() => requestAnimationFrame(() => {
  document.title = d.title;
  const img = document.createElement('img');
  img.id = 'late';
  img.src = '/late.png';
  document.body.append(img);
})));
</script></body></html>`;

function solidPng(): Buffer {
  const png = new PNG({ width: 20, height: 20 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([...COLOUR, 255], i);
  return PNG.sync.write(png);
}

/** Replay's answers, those of `held` paths kept back until the test releases them. */
class HeldAnswers extends ReplayAnswers {
  readonly asked = new Map<string, number>();
  readonly #gates = new Map<string, { arrived: PromiseWithResolvers<void>; release: PromiseWithResolvers<void> }>();

  constructor(held: string[]) {
    super();
    for (const p of held) this.#gates.set(p, { arrived: Promise.withResolvers(), release: Promise.withResolvers() });
  }

  arrived(p: string): Promise<void> {
    return this.#gates.get(p)!.arrived.promise;
  }

  release(p: string): void {
    this.#gates.get(p)!.release.resolve();
  }

  override async answer(archive: Archive, req: ReplayHttpRequest): Promise<ReplayAnswer> {
    const p = new URL(req.url).pathname;
    this.asked.set(p, (this.asked.get(p) ?? 0) + 1);
    const gate = this.#gates.get(p);
    if (gate) {
      gate.arrived.resolve();
      await gate.release.promise;
    }
    return super.answer(archive, req);
  }
}

describe.skipIf(!chromium)('QA reads a replayed page when it is finished', () => {
  let server: LocalServer;
  let crawl: CrawlRun;
  let browser: Browser;

  beforeAll(async () => {
    const png = solidPng();
    server = await startHttpServer((req, res) => {
      const p = new URL(req.url ?? '/', 'http://x').pathname;
      const send = (type: string, body: string | Buffer) => res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
      if (p === '/page.html') return send('text/html; charset=utf-8', PAGE);
      if (p === '/data.json') return send('application/json', JSON.stringify({ title: 'Data arrived' }));
      if (p === '/late.png') return send('image/png', png);
      res.writeHead(404).end();
    });
    // An HTTP crawl finds neither the data nor the image in the page: both are seeds.
    crawl = await runCrawl({ seeds: ['/page.html', '/data.json', '/late.png'].map((p) => server.origin + p), maxHops: 0 });
    browser = await launchQaBrowser(chromium!);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    crawl?.cleanup();
  });

  it('is not scored while the data or the image is pending, then scored once, good, with what the script added', async () => {
    const archive = openArchive(crawl.dir, { create: false });
    const answers = new HeldAnswers(['/data.json', '/late.png']);
    const tab = await QaTab.open(browser, QA_VIEWPORT, true, null, answers);
    try {
      const page = selectPages(archive, {}).find((p) => p.url === `${server.origin}/page.html`)!;
      let scored = false;
      const scoring = scorePage(tab, archive, page, null).finally(() => (scored = true));
      await answers.arrived('/data.json');
      expect(scored).toBe(false);
      answers.release('/data.json');
      // The image is asked for only after the data came and two frames passed.
      await answers.arrived('/late.png');
      expect(scored).toBe(false);
      answers.release('/late.png');
      const r = await scoring;

      expect(r.band).toBe('good');
      expect(r.title).toBe('Data arrived');
      expect(r.resources).toEqual({ captured: 2, missing: 0, errors: 0 });
      expect(Object.fromEntries(answers.asked)).toMatchObject({ '/page.html': 1, '/data.json': 1, '/late.png': 1 });
      // The image the script added is in the screenshot QA kept (at half the viewport).
      const shot = PNG.sync.read(fs.readFileSync(qaShotPath(archive.dir, page.url, page.ts, 'replay')!));
      const at = (Math.round(50 * QA_SHOT_SCALE) * shot.width + Math.round(50 * QA_SHOT_SCALE)) * 4;
      expect([...shot.data.subarray(at, at + 3)]).toEqual(COLOUR);
    } finally {
      await tab.close();
      archive.close();
    }
  }, 120_000);
});
