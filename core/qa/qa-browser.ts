/**
 * The headless Chromium QA replays pages in: playwright-core (as the browser crawl and the e2e
 * tests drive it) with the replay isolation policy's host part — no UDP without a proxy
 * (core/replay/replay-policy.ts REPLAY_WEBRTC_POLICY) — and no network of its own beyond what
 * each tab's request handler answers (qa-replay-tab.ts answers every http(s) request from the
 * archive). The live reference (`--against-live`) uses the same browser in its own contexts.
 */
import type { Browser } from 'playwright-core';
import { TroveError } from '../errors.ts';
import { findChromium } from '../browser/find-chromium.ts';
import { REPLAY_WEBRTC_POLICY } from '../replay/replay-policy.ts';
import { CHROMIUM_CRAWL_ARGS, rendererProcessArgs } from '../browser/chromium-tab-source.ts';

// The browser crawl's flags (core/browser/chromium-tab-source.ts), so a page renders as it did
// when its capture-time screenshot was taken, plus the replay policy's.
const ARGS = [...CHROMIUM_CRAWL_ARGS, '--disable-quic', `--force-webrtc-ip-handling-policy=${REPLAY_WEBRTC_POLICY}`];

/** `tabs`: the run's tabs, each reusing one renderer process from page to page as a crawl's tabs do. */
export async function launchQaBrowser(chromiumPath?: string, tabs?: number): Promise<Browser> {
  const executablePath = findChromium(chromiumPath ? { path: chromiumPath } : {});
  const { chromium } = await import('playwright-core');
  // Chromium refuses to run sandboxed as root (containers, CI): only then is the sandbox off.
  const args = [...ARGS, ...(tabs ? rendererProcessArgs(tabs) : []), ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])];
  try {
    return await chromium.launch({ executablePath, args, headless: true });
  } catch (err) {
    throw new TroveError('BROWSER_LAUNCH_FAILED', `could not start ${executablePath}: ${(err as Error).message.split('\n')[0]}`, { path: executablePath }, { cause: err });
  }
}
