/**
 * RecordSession through the app service's record.* commands, with a real Chromium tab as the
 * Record window (test/e2e/record-tab.ts) and a real HTTP site: recording into an archive that
 * already exists, a reload written as revisits, the live DOM's text, the window closed by the
 * archivist, a recording cut short by a crash recovered, the browser fixture site browsed by
 * hand with every request it served found in the WARC, all read back by warcio.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordStatus } from '../../core/api/app-types.ts';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import { databaseOf } from '../../core/archive/archive-dir.ts';
import { findChromium, NO_CHROMIUM_MESSAGE } from '../e2e/harness.ts';
import { recordTabs, type RecordTabs } from '../e2e/record-tab.ts';
import { startRecordSite, type RecordSite } from '../fixtures/record-site.ts';
import { readWarcFile } from '../helpers/read-warcs.ts';
import { startBrowserSite } from '../helpers/browser-site-server.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('RecordSession (record.* commands) with a Chromium tab', () => {
  let site: RecordSite;
  let tabs: RecordTabs;
  let service: AppService;
  let libraryDir: string;
  const progress: RecordStatus[] = [];

  beforeAll(async () => {
    site = await startRecordSite();
    tabs = recordTabs(chromium!);
    libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-record-'));
    service = createAppService({
      libraryDir,
      emit: (name, payload) => {
        if (name === 'record.progress') progress.push(payload as RecordStatus);
      },
      openRecordTab: () => tabs.open(),
    });
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await tabs?.close();
    await site?.close();
    if (libraryDir) fs.rmSync(libraryDir, { recursive: true, force: true });
  });

  const h = () => service.handlers;
  const status = async () => (await h()['record.status']({}))!;
  const ready = async (pathname: string) =>
    expect.poll(() => tabs.page()!.evaluate((p) => (location.pathname === p ? (document.body?.dataset.ready ?? '') : ''), pathname), { timeout: 15_000 }).toBe('1');

  it('records into an existing archive, twice; a reload is written as revisits; each recording has its own WARC', async () => {
    const first = await h()['record.start']({ newArchiveName: 'Kept', url: `${site.origin}/` });
    const id = first.archiveId;
    expect(first.state).toBe('recording');
    await ready('/');
    await expect.poll(async () => (await status()).pages.length, { timeout: 15_000 }).toBe(1);
    const stopped = (await h()['record.stop']({}))!;
    expect(stopped.state).toBe('stopped');
    expect(stopped.pages[0]).toMatchObject({ url: `${site.origin}/`, title: 'Record home', status: 200 });
    expect(progress.at(-1)?.state).toBe('stopped');

    // Again into the same archive: the home page twice (a reload), then the second page.
    await h()['record.start']({ archiveId: id, url: `${site.origin}/` });
    await ready('/');
    await tabs.page()!.reload();
    await ready('/');
    await h()['record.navigate']({ url: `${site.origin}/second` });
    await ready('/second');
    await expect.poll(async () => (await status()).pages.length, { timeout: 15_000 }).toBe(3);
    const again = (await h()['record.stop']({}))!;
    // Every page opened is a page (the reload too); what it loads again unchanged is a revisit.
    expect(again.pages.map((p) => new URL(p.url).pathname)).toEqual(['/', '/', '/second']);

    const warcs = fs.readdirSync(path.join(libraryDir, id, 'warcs')).sort();
    expect(warcs).toHaveLength(2);
    expect(warcs.every((n) => /^rec-.*\.warc\.gz$/.test(n))).toBe(true);
    const records = await readWarcFile(path.join(libraryDir, id, 'warcs', warcs[1]!));
    const revisits = records.filter((r) => r.type === 'revisit');
    expect(revisits.map((r) => new URL(r.targetUri!).pathname)).toContain('/app.js');
    for (const r of revisits) {
      expect(r.warcHeaders['WARC-Profile']).toBe('http://netpreserve.org/warc/1.1/revisit/identical-payload-digest');
      expect(r.warcHeaders['WARC-Refers-To']).toMatch(/^<urn:uuid:/);
    }
    // Each file's fixity was recorded when it closed, as a crawl's is.
    const files = service.archive(id).index.files();
    expect(files.map((f) => f.name).sort()).toEqual(warcs);
    for (const f of files) expect(f.size).toBe(fs.statSync(path.join(libraryDir, id, f.path)).size);
    // Once stopped, the archive exports as any other: a WACZ listing the pages of both recordings.
    const wacz = await h()['export.run']({ archiveId: id, format: 'wacz' });
    expect(fs.statSync(wacz.path).size).toBe(wacz.bytes);
    expect(wacz.summary.pages).toBe(4);
    // Search finds the script-built text (the live DOM's, not the HTML's "loading…").
    const hits = await h()['records.search']({ archiveId: id, q: 'ledger' });
    expect(hits.length).toBeGreaterThan(0);
  }, 90_000);

  it('the archivist closing the Record window stops the recording and keeps what it wrote', async () => {
    const s = await h()['record.start']({ newArchiveName: 'Closed early', url: `${site.origin}/` });
    await ready('/');
    await expect.poll(async () => (await status()).pages.length, { timeout: 15_000 }).toBe(1);
    await tabs.page()!.close();
    await expect.poll(async () => (await status()).state, { timeout: 15_000 }).toBe('stopped');
    const end = await status();
    expect(end.message).toMatch(/Record window was closed/);
    const warcs = fs.readdirSync(path.join(libraryDir, s.archiveId, 'warcs'));
    expect(warcs).toHaveLength(1);
    expect(warcs[0]).not.toMatch(/\.open$/);
    const records = await readWarcFile(path.join(libraryDir, s.archiveId, 'warcs', warcs[0]!));
    expect(records.some((r) => r.type === 'response' && r.targetUri === `${site.origin}/`)).toBe(true);
  }, 60_000);

  it('a recording cut short by a crash (its .open WARC left, its tail torn, rows not committed) is recovered before the next one', async () => {
    const id = 'Closed early';
    const a = service.archive(id);
    const dir = path.join(libraryDir, id, 'warcs');
    const [closed] = fs.readdirSync(dir);
    const before = a.index.count();
    // What a kill -9 leaves: the file registered at open, written past its last committed row, a torn record at the end.
    const name = 'rec-20260101000000000-00000-1~crashed.warc.gz';
    const bytes = fs.readFileSync(path.join(dir, closed!));
    fs.writeFileSync(path.join(dir, name + '.open'), Buffer.concat([bytes, bytes.subarray(0, 100)]));
    const fileId = a.index.addFile({ path: `warcs/${name}`, name, source: 'crawl' });

    const s = await h()['record.start']({ archiveId: id, url: `${site.origin}/second` });
    expect(s.message).toMatch(/recovered rec-20260101000000000-00000-1~crashed\.warc\.gz: \d+ records kept, torn last record cut \(100 bytes\)/);
    await h()['record.stop']({});
    expect(fs.existsSync(path.join(dir, name + '.open'))).toBe(false);
    expect(fs.statSync(path.join(dir, name)).size).toBe(bytes.length);
    const records = await readWarcFile(path.join(dir, name));
    // Every record of the recovered file is indexed now (warcinfo aside), and its fixity recorded.
    expect(a.index.files().find((f) => f.id === fileId)?.records).toBe(records.length - 1);
    expect(a.index.count()).toBeGreaterThanOrEqual(before + records.length - 1);
    expect(databaseOf(a).prepare('SELECT COUNT(*) AS n FROM file_fixity WHERE file_id = ?').get(fileId)).toEqual({ n: 1 });
  }, 60_000);

  it('the browser fixture site browsed by hand (an SPA, a redirect, a POST, gzip, lazy images scrolled into view): every request the site saw is in the WARC', async () => {
    const fixture = await startBrowserSite();
    try {
      const s = await h()['record.start']({ newArchiveName: 'Fixture site', url: `${fixture.origin}/spa.html` });
      const tab = tabs.page()!;
      const hit = (u: string) => fixture.hits.some((x) => x.url === u);
      await expect.poll(() => hit('/api/articles.json') && hit('/img/logo.png') && hit('/api/echo'), { timeout: 15_000 }).toBe(true);
      await h()['record.navigate']({ url: `${fixture.origin}/lazy.html` });
      await expect.poll(() => tab.evaluate(() => document.readyState).catch(() => ''), { timeout: 15_000 }).toBe('complete');
      // The archivist scrolls down the gallery: each image loads as it comes into view.
      for (let n = 1; n <= 6; n++) {
        await tab.evaluate((i) => document.querySelectorAll('img.lazy')[i - 1]!.scrollIntoView(), n);
        await expect.poll(() => hit(`/img/lazy-${n}.png`), { timeout: 10_000 }).toBe(true);
      }
      // Every request has reached the WARC once the recording says so.
      const seen = [...new Set(fixture.hits.map((x) => x.url))];
      const end = (await h()['record.stop']({}))!;
      expect(end.pages.map((p) => new URL(p.url).pathname)).toEqual(['/spa.html', '/lazy.html']);
      const [name] = fs.readdirSync(path.join(libraryDir, s.archiveId, 'warcs'));
      const records = await readWarcFile(path.join(libraryDir, s.archiveId, 'warcs', name!));
      const url = (r: { targetUri: string | null }) => {
        const u = new URL(r.targetUri!);
        return u.pathname + u.search;
      };
      const recorded = new Set(records.filter((r) => r.type === 'response').map(url));
      // Coverage: 100% of what the server was asked while recording.
      expect(seen.filter((x) => !recorded.has(x))).toEqual([]);
      // The POST went in with its body; the redirect hop and its target are both there.
      const post = records.find((r) => r.type === 'request' && url(r) === '/api/echo')!;
      expect(JSON.parse(post.payload.toString())).toMatchObject({ viewed: 'spa' });
      expect(records.find((r) => r.type === 'response' && url(r) === '/go/logo.png')?.status).toBe(302);
      expect(records.find((r) => r.type === 'response' && url(r) === '/img/logo.png')?.status).toBe(200);
    } finally {
      await h()['record.stop']({});
      await fixture.close();
    }
  }, 90_000);
});
