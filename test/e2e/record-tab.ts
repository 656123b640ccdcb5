/**
 * The Record window in the tests: a page of a second Chromium, in a fresh browser context (its own
 * cookie jar, as the app's `persist:trove-record` partition is its own), whose playwright
 * CDPSession is the CdpSession handed to core's RecordSession — the same code the Electron
 * window feeds through electron/main/debugger-session.ts.
 *
 * A second browser, not a page of the harness's: the harness pauses every request of its own
 * browser to answer replay from the archive, and the Record window must reach the live site.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { OpenRecordTab, RecordTab } from '../../core/app/record-session.ts';
import { CHROMIUM_ARGS } from './harness.ts';

export interface RecordTabs {
  open: OpenRecordTab;
  /** The page of the tab opened last (what the archivist browses). */
  page(): Page | null;
  close(): Promise<void>;
}

export function recordTabs(chromium: string): RecordTabs {
  let browser: Browser | null = null;
  let current: Page | null = null;
  const contexts = new Set<BrowserContext>();
  return {
    async open(): Promise<RecordTab> {
      if (!browser) {
        const { chromium: pw } = await import('playwright-core');
        browser = await pw.launch({ executablePath: chromium, args: CHROMIUM_ARGS });
      }
      const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
      contexts.add(context);
      const page = await context.newPage();
      current = page;
      const session = await context.newCDPSession(page);
      let closing = false;
      const closed: (() => void)[] = [];
      page.on('close', () => {
        if (!closing) for (const l of closed) l();
      });
      return {
        session,
        onClosed: (l) => void closed.push(l),
        async close() {
          closing = true;
          contexts.delete(context);
          await context.close().catch(() => {});
        },
      };
    },
    page: () => current,
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser?.close();
    },
  };
}
