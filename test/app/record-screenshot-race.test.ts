/**
 * A Record window screenshot belongs to the document whose network went quiet. The archivist may
 * click on while it is being taken: the capture then shows the next document, and filing it
 * under the page left would put the wrong picture on that page's thumbnail and in its WARC
 * `urn:view:` record. Here the tab (a real Chromium, test/e2e/record-tab.ts) is made to navigate
 * exactly while the first screenshot is taken, by holding Page.captureScreenshot until the next
 * document commits; the page left gets no screenshot, the page arrived at gets its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordTab } from '../../core/app/record-session.ts';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import { findChromium, NO_CHROMIUM_MESSAGE } from '../e2e/harness.ts';
import { recordTabs, type RecordTabs } from '../e2e/record-tab.ts';
import { startRecordSite, type RecordSite } from '../fixtures/record-site.ts';
import { readWarcFile } from '../helpers/read-warcs.ts';
import { hasScreenshot } from '../helpers/page-screenshot.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('Record window screenshots and navigation', () => {
  let site: RecordSite;
  let tabs: RecordTabs;
  let service: AppService;
  let libraryDir: string;
  /** The main frame's URL now, as the tab's own frameNavigated events say. */
  let shown = '';

  /** The real tab, whose first Page.captureScreenshot of the home page is sent only after /second has committed. */
  async function tabThatMovesOnDuringTheFirstScreenshot(): Promise<RecordTab> {
    const tab = await tabs.open();
    const real = tab.session;
    let first = true;
    real.on('Page.frameNavigated', (e: { frame?: { parentId?: string; url?: string } }) => {
      if (e.frame && !e.frame.parentId) shown = e.frame.url ?? '';
    });
    const session = {
      on: (event: string, l: (p: any) => void) => real.on(event, l),
      off: (event: string, l: (p: any) => void) => real.off(event, l),
      async send(method: string, params?: Record<string, unknown>): Promise<any> {
        if (method === 'Page.captureScreenshot' && first && shown === `${site.origin}/`) {
          first = false;
          // Its response is indexed first: else there is nothing to file it under, and nothing tested.
          await expect.poll(async () => (await service.handlers['record.status']({}))!.pages.length, { timeout: 15_000 }).toBe(1);
          const committed = new Promise<void>((resolve) => {
            const l = (e: { frame?: { parentId?: string; url?: string } }) => {
              if (e.frame && !e.frame.parentId && e.frame.url?.endsWith('/second')) {
                real.off('Page.frameNavigated', l);
                resolve();
              }
            };
            real.on('Page.frameNavigated', l);
          });
          await real.send('Page.navigate', { url: `${site.origin}/second` });
          await committed;
        }
        return real.send(method, params);
      },
    };
    return { session, onClosed: tab.onClosed, close: tab.close };
  }

  beforeAll(async () => {
    site = await startRecordSite();
    tabs = recordTabs(chromium!);
    libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-record-'));
    service = createAppService({ libraryDir, emit: () => {}, openRecordTab: tabThatMovesOnDuringTheFirstScreenshot });
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await tabs?.close();
    await site?.close();
    if (libraryDir) fs.rmSync(libraryDir, { recursive: true, force: true });
  });

  it('a screenshot taken while the next page commits is dropped, not filed under the page left; the next page gets its own', async () => {
    const h = service.handlers;
    const { archiveId } = await h['record.start']({ newArchiveName: 'Moved on', url: `${site.origin}/` });
    const status = async () => (await h['record.status']({}))!;
    await expect.poll(async () => (await status()).pages.map((p) => new URL(p.url).pathname), { timeout: 15_000 }).toEqual(['/', '/second']);
    // /second's own screenshot, at its network idle.
    const shotOf = (pathname: string) => hasScreenshot(h, archiveId, pathname);
    await expect.poll(() => shotOf('/second'), { timeout: 15_000 }).toBe(true);
    await h['record.stop']({});
    expect(await shotOf('/')).toBe(false);

    const warcs = fs.readdirSync(path.join(libraryDir, archiveId, 'warcs'));
    const records = await readWarcFile(path.join(libraryDir, archiveId, 'warcs', warcs[0]!));
    const shots = records.filter((r) => r.type === 'resource' && r.targetUri?.startsWith('urn:view:'));
    expect(shots.map((r) => new URL(r.targetUri!.slice('urn:view:'.length)).pathname)).toEqual(['/second']);
  }, 60_000);
});
