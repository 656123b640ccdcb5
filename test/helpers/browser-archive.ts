/**
 * Browser captures written the way the crawl writes HTTP captures: each recorded exchange goes
 * through exchange-records.ts and buildCaptureGroup into a WarcWriter. Used by the recorder's
 * tests in test/browser (the fidelity e2e test archives through a real browser crawl instead).
 */
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { buildCaptureGroup } from '../../core/crawl/capture-records.ts';
import { exchangeCaptureInput } from '../../core/crawl/exchange-records.ts';
import { capturePage, type CapturePageOptions, type PageCapture } from '../../core/browser/capture-page.ts';
import type { CdpSession } from '../../core/browser/cdp-session.ts';
import type { RecordedExchange, RecordSink } from '../../core/browser/recorded-exchange.ts';
import { WarcWriter } from '../../core/warc/warc-writer.ts';

/** A sink that keeps every exchange (bodies as recorded: spooled ones stay on disk). */
export function collectingSink(): RecordSink & { exchanges: RecordedExchange[] } {
  const exchanges: RecordedExchange[] = [];
  return {
    exchanges,
    async exchange(x) {
      exchanges.push(x);
    },
  };
}

/** A sink that writes each exchange's records through `writer` (and keeps the exchange, body aside). */
export function warcSink(writer: WarcWriter): RecordSink & { exchanges: Omit<RecordedExchange, 'body'>[] } {
  const exchanges: Omit<RecordedExchange, 'body'>[] = [];
  return {
    exchanges,
    async exchange(x) {
      const input = await exchangeCaptureInput(x);
      try {
        const group = buildCaptureGroup(input);
        await writer.writeGroup(group.records);
        const { body: _body, ...rest } = x;
        exchanges.push(rest);
      } finally {
        await input.fetch.body?.dispose();
      }
    },
  };
}

export function newWarcWriter(dir: string, prefix = 'BROWSER'): WarcWriter {
  fs.mkdirSync(dir, { recursive: true });
  return new WarcWriter({ dir, prefix, maxBytes: 1024 * 1024 * 1024, hostLabel: 'test', warcinfo: () => ({ fields: { software: 'Trove browser capture test' } }) });
}

/** Capture one URL in a fresh page of `browser` (its own context, 1280×800). */
export async function captureInBrowser(browser: Browser, url: string, opts: CapturePageOptions): Promise<PageCapture> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const session = (await context.newCDPSession(page)) as unknown as CdpSession;
    return await capturePage(session, url, opts);
  } finally {
    await context.close();
  }
}
