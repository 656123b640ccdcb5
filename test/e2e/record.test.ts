/**
 * Record by browsing (issue #17 item 5), in Chromium through the harness: the app's Record screen
 * drives a Record tab (a page of a second Chromium, test/e2e/record-tab.ts) whose CDP session goes
 * to the same RecordSession and PageRecorder the Electron window feeds through its debugger
 * adapter. The archivist starts on the home page, clicks a link in the recorded tab, stops; the
 * archive's Pages view lists both pages, warcio reads their responses and the script-loaded
 * resources back from the rec-….warc.gz, and Trove's replay answers the page and everything its
 * script asks for from the archive.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frame, Page } from 'playwright-core';
import { ARTIFACTS, findChromium, NO_CHROMIUM_MESSAGE, startAppSession, type AppSession, type Harness } from './harness.ts';
import { recordTabs, type RecordTabs } from './record-tab.ts';
import { expectNothingCutOff } from './layout-checks.ts';
import { HOME_SCRIPT_TEXT, PIXEL_PNG, SECOND_SCRIPT_TEXT, startRecordSite, type RecordSite } from '../fixtures/record-site.ts';
import { readWarcFile } from '../helpers/read-warcs.ts';
import { hasScreenshot } from '../helpers/page-screenshot.ts';
import { replayResponse } from '../../core/app/replay-bridge.ts';
import { checkSeeds } from '../../core/app/crawl-checks.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('Record by browsing in Chromium', () => {
  let session: AppSession;
  let tabs: RecordTabs;
  let site: RecordSite;
  let app: Harness;
  let page: Page;
  let libraryDir: string;
  const byTestId = (tid: string) => page.getByTestId(tid);
  const recorded = () => page.locator('[data-testid=record-page] .title').allTextContents();

  beforeAll(async () => {
    site = await startRecordSite();
    tabs = recordTabs(chromium!);
    session = await startAppSession({ chromium: chromium!, viewport: { width: 1280, height: 800 }, openRecordTab: () => tabs.open() });
    ({ app, page, libraryDir } = session);
  }, 120_000);

  afterAll(async () => {
    await Promise.resolve(app?.service.handlers['record.stop']({})).catch(() => {});
    await session?.close();
    await tabs?.close();
    await site?.close();
  });

  it('records two pages browsed by hand into a new archive; the pages list grows; warcio reads them back; replay shows them', async () => {
    await byTestId('nav-record').click();
    await byTestId('record-name').fill('Recorded by hand');
    await byTestId('record-url').fill(`${site.origin}/`);
    await byTestId('record-start').click();
    await expect.poll(() => byTestId('recording-indicator').count(), { timeout: 15_000 }).toBe(1);

    // The Record tab loads the home page; its script fetches JSON and an image.
    const tab = tabs.page()!;
    await expect.poll(() => tab.evaluate(() => document.body?.dataset.ready ?? ''), { timeout: 15_000 }).toBe('1');
    await expect.poll(recorded, { timeout: 15_000 }).toEqual(['Record home']);
    // The archivist reads the page a moment: once its network is quiet, its script-built text is
    // indexed for search (the live DOM's, taken at Chromium's networkIdle).
    const found = async (q: string) => (await app.service.handlers['records.search']({ archiveId: (await app.service.handlers['record.status']({}))!.archiveId, q })).map((hit) => new URL(hit.url!).pathname);
    await expect.poll(() => found('home ledger'), { timeout: 15_000 }).toEqual(['/']);
    // And its screenshot is taken then (a click on before it is done leaves the page without
    // one: a capture that shows the next document is never filed under this one).
    const archiveId = (await app.service.handlers['record.status']({}))!.archiveId;
    await expect.poll(() => hasScreenshot(app.service.handlers, archiveId, '/'), { timeout: 15_000 }).toBe(true);

    // A click in the recorded tab, as the archivist browses.
    await tab.click('#next');
    await expect.poll(() => tab.evaluate(() => (location.pathname === '/second' ? (document.body?.dataset.ready ?? '') : '')), { timeout: 15_000 }).toBe('1');
    await expect.poll(recorded, { timeout: 15_000 }).toEqual(['Second page', 'Record home']);
    await page.screenshot({ path: path.join(ARTIFACTS, '30-record-1280x800.png') });
    await page.setViewportSize({ width: 1024, height: 700 });
    await expectNothingCutOff(page, '[data-testid=record-screen] :is(button, input, select)');
    await page.screenshot({ path: path.join(ARTIFACTS, '30-record-1024x700.png') });
    await page.setViewportSize({ width: 1280, height: 800 });

    await byTestId('record-stop').click();
    await expect.poll(() => byTestId('recording-indicator').count(), { timeout: 15_000 }).toBe(0);
    // What the site served while recording, from its own log: all of it must be in the WARC.
    const served = new Set(site.requests);
    const status = (await app.service.handlers['record.status']({}))!;
    expect(status.state).toBe('stopped');
    expect(status.pages.map((p) => p.url)).toEqual([`${site.origin}/`, `${site.origin}/second`]);
    const id = status.archiveId;

    // The archive's own Pages view (the WARC browser's) lists both pages.
    await byTestId('record-browse').click();
    await byTestId('view-pages').click();
    await expect.poll(() => page.locator('[data-testid=page-row] td.title').allTextContents(), { timeout: 10_000 }).toEqual(['Record home', 'Second page']);
    // Each with its screenshot (taken when its network went quiet, or at stop) as a thumbnail.
    const thumbs = () => page.locator('[data-testid=page-thumb]').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0));
    await expect.poll(thumbs, { timeout: 10_000 }).toEqual([true, true]);

    // The WARC, read back by warcio: one rec-….warc.gz, closed (no .open left) and indexed.
    const warcDir = path.join(libraryDir, id, 'warcs');
    const names = fs.readdirSync(warcDir);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^rec-\d{17}-\d{5}-\d+~.+\.warc\.gz$/);
    const records = await readWarcFile(path.join(warcDir, names[0]!));
    expect(records[0]!.type).toBe('warcinfo');
    const responses = new Map(records.filter((r) => r.type === 'response').map((r) => [new URL(r.targetUri!).pathname, r]));
    for (const p of ['/', '/second', '/app.js', '/style.css', '/data.json', '/second.json', '/img/dot.png']) {
      expect(responses.has(p), `response for ${p}`).toBe(true);
      expect(responses.get(p)!.status).toBe(200);
    }
    for (const p of served) expect(responses.has(p), `the site served ${p} while recording: its response is in the WARC`).toBe(true);
    expect(responses.get('/img/dot.png')!.payload.equals(PIXEL_PNG)).toBe(true);
    expect(JSON.parse(responses.get('/data.json')!.payload.toString()).text).toBe(HOME_SCRIPT_TEXT);
    // One screenshot per page: a PNG `resource` record urn:view:<page>, concurrent to the page's response.
    const shots = records.filter((r) => r.type === 'resource' && r.targetUri?.startsWith('urn:view:'));
    expect(shots.map((r) => new URL(r.targetUri!.slice('urn:view:'.length)).pathname).sort()).toEqual(['/', '/second']);
    for (const r of shots) {
      expect(r.warcHeaders['Content-Type']).toBe('image/png');
      expect(r.payload.subarray(0, 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
      expect(r.concurrentTo).toContain(responses.get(new URL(r.targetUri!.slice('urn:view:'.length)).pathname)!.recordId);
    }
    // Each response has its request record, pointing at it.
    const requests = records.filter((r) => r.type === 'request');
    for (const r of responses.values()) expect(requests.some((q) => q.concurrentTo.includes(r.recordId)), `request for ${r.targetUri}`).toBe(true);
    // The capture index holds the same records as the file.
    const indexed = app.service.archive(id).index.count();
    expect(indexed).toBe(records.length - 1);
    // The library lists the recording as an archive with its one WARC.
    const entry = (await app.service.handlers['library.list']({})).find((e) => e.id === id)!;
    expect(entry.warcFiles).toBe(1);

    // Replay through Trove's replay, from the archive only: the page, and every resource its
    // script asks for answered 200 from the recording. (The harness draws replay in a sandboxed
    // iframe without allow-same-origin, as the app's CSP wants; there the page's fetch() of its
    // own JSON is cross-origin and the browser refuses to hand it to the script, so the
    // script-built text is checked from what replay answered, not from the frame's DOM.)
    const asked = site.requests.length;
    await page.locator('[data-testid=page-row]', { hasText: 'Record home' }).click();
    const home = await replayFrame(page, `${site.origin}/`);
    await expect.poll(() => home.evaluate(() => document.querySelector('h1')?.textContent), { timeout: 10_000 }).toBe('Record home');
    expect(await byTestId('replay-state').textContent()).toContain('ARCHIVED');
    const answered = (p: string) => app.replayed.find((r) => r.url === `${site.origin}${p}`)?.status;
    await expect.poll(() => answered('/data.json'), { timeout: 10_000 }).toBe(200);
    expect(answered('/app.js')).toBe(200);
    expect(answered('/style.css')).toBe(200);
    const json = await replayResponse(app.service.archive(id), { url: `${site.origin}/data.json`, method: 'GET', headers: [] });
    expect(JSON.parse(json.body.toString()).text).toBe(HOME_SCRIPT_TEXT);
    const img = await replayResponse(app.service.archive(id), { url: `${site.origin}/img/dot.png`, method: 'GET', headers: [] });
    expect(img.status).toBe(200);
    expect(img.body.equals(PIXEL_PNG)).toBe(true);
    expect(site.requests.length).toBe(asked);
    await page.screenshot({ path: path.join(ARTIFACTS, '31-record-replay-1280x800.png') });

    await byTestId('view-pages').click();
    await page.locator('[data-testid=page-row]', { hasText: 'Second page' }).click();
    const second = await replayFrame(page, `${site.origin}/second`);
    await expect.poll(() => second.evaluate(() => document.querySelector('h1')?.textContent), { timeout: 10_000 }).toBe('Second page');
    await expect.poll(() => answered('/second.json'), { timeout: 10_000 }).toBe(200);
    // Search finds what the script wrote into the page (the live DOM's text).
    expect((await app.service.handlers['records.search']({ archiveId: id, q: 'ledger' })).map((hit) => hit.url).sort()).toEqual([`${site.origin}/`, `${site.origin}/second`]);
    expect(SECOND_SCRIPT_TEXT).toContain('ledger');
  }, 120_000);

  it('refuses what it cannot record: a non-web address, two recordings at once', async () => {
    const h = app.service.handlers;
    // Handlers may throw synchronously or reject: both as a rejection here.
    const call = <T>(fn: () => T | Promise<T>) => (async () => fn())();
    await expect(call(() => h['record.start']({ newArchiveName: 'x', url: 'file:///etc/passwd' }))).rejects.toMatchObject({ code: 'RECORD_BAD_URL' });
    await expect(call(() => h['record.start']({ url: `${site.origin}/` }))).rejects.toMatchObject({ code: 'RECORD_NO_ARCHIVE' });
    await expect(call(() => h['record.navigate']({ url: `${site.origin}/` }))).rejects.toMatchObject({ code: 'RECORD_NOT_RUNNING' });
    const started = await h['record.start']({ newArchiveName: 'Second recording', url: `${site.origin}/second` });
    try {
      await expect(call(() => h['record.start']({ newArchiveName: 'Third', url: `${site.origin}/` }))).rejects.toMatchObject({ code: 'RECORDING' });
      await expect(call(() => h['library.prepareDelete']({ id: started.archiveId }))).rejects.toMatchObject({ code: 'RECORDING' });
      // The archive's name is quoted: a name like "Export while running" must not read as part of the sentence.
      await expect(call(() => h['export.run']({ archiveId: started.archiveId, format: 'wacz' }))).rejects.toMatchObject({ code: 'RECORDING', message: `stop recording into “${started.archiveId}” before exporting it` });
    } finally {
      await h['record.stop']({});
    }
    // No archive was left behind by the refused starts.
    expect((await h['library.list']({})).map((e) => e.name).sort()).toEqual(['Recorded by hand', 'Second recording']);
  }, 60_000);

  it('an address without a scheme is refused as a seed is; a recording of nothing leaves no archive; a recording is labelled so', async () => {
    const h = app.service.handlers;
    const call = <T>(fn: () => T | Promise<T>) => (async () => fn())();
    // One rule for seeds and Record: an address without its scheme (`example.org`; a loopback one
    // here, so a failing run reaches nothing outside) is not an address in either.
    const seed = checkSeeds('127.0.0.1:1/page')[0]!;
    expect(seed.error).not.toBeNull();
    await expect(call(() => h['record.start']({ newArchiveName: 'No scheme', url: '127.0.0.1:1/page' }))).rejects.toMatchObject({ code: 'RECORD_BAD_URL', message: seed.error });
    // A page that cannot load (nothing listens on port 1) records nothing: the new archive goes.
    const dirs = fs.readdirSync(libraryDir).sort();
    await h['record.start']({ newArchiveName: 'Nothing captured', url: 'http://127.0.0.1:1/' });
    const stopped = await h['record.stop']({});
    expect(stopped?.records).toBe(0);
    const names = (await h['library.list']({})).map((e) => e.name);
    expect(names).not.toContain('Nothing captured');
    expect(fs.readdirSync(libraryDir).sort()).toEqual(dirs);
    // A recording is a recording in the library, not an import.
    expect((await h['library.list']({})).find((e) => e.name === 'Recorded by hand')).toMatchObject({ kind: 'archive', state: 'recording' });
    await byTestId('nav-library').click();
    const row = page.locator('[data-testid=library-row]', { hasText: 'Recorded by hand' });
    await expect.poll(() => row.textContent()).toContain('recording');
    expect(await row.textContent()).not.toContain('imported');
  }, 60_000);
});

async function replayFrame(page: Page, url: string): Promise<Frame> {
  let found: Frame | undefined;
  await expect.poll(() => (found = page.frames().find((f) => f !== page.mainFrame() && f.url() === url)) !== undefined, { timeout: 10_000 }).toBe(true);
  return found!;
}
