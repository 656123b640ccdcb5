/**
 * The e2e harness: the real renderer (built with the same Vite settings as the app), served from
 * 127.0.0.1, in real Chromium, with `window.trove` bound to the real core/app handlers.
 *
 * It stands in for electron/main and electron/preload:
 * - an init script builds `window.trove` with the same `buildTroveApi` and channel table the
 *   preload uses, over a Playwright binding instead of ipcRenderer;
 * - the binding checks the sender (our page's main frame only), then `dispatch` validates and
 *   calls the handler, like the Electron IPC gate;
 * - shell commands (replay view, file dialog, theme) are answered here;
 * - the replay pane is an iframe whose requests are paused over CDP (Fetch domain) and answered
 *   by the same `replayResponse` the Electron protocol handler uses: nothing reaches the network.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { buildTroveApi, COMMAND_CHANNEL_PREFIX, type EventName, type Events } from '../../core/api/channels.ts';
import { COMMAND_NAMES, type Handlers, type ShellCommandName } from '../../core/api/commands.ts';
import { EVENT_NAMES } from '../../core/api/channels.ts';
import type { ReplayInfo } from '../../core/api/app-types.ts';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import { findChromium as findCrawlChromium } from '../../core/browser/find-chromium.ts';
import type { OpenRecordTab } from '../../core/app/record-session.ts';
import { dispatch } from '../../core/app/gate.ts';
import { replayInfo, replayResponse } from '../../core/app/replay-bridge.ts';
import { REPLAY_WEBRTC_POLICY, replaySchemeAllowed } from '../../core/replay/replay-policy.ts';
import { MissingResources } from '../../core/replay/missing-resources.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // The replay policy's WebRTC rule, as Electron's replay session sets it (core/replay/replay-policy.ts).
  `--force-webrtc-ip-handling-policy=${REPLAY_WEBRTC_POLICY}`,
];

/**
 * A Chromium binary, or null: the same search a browser crawl makes (core/browser/find-chromium.ts),
 * with CHROMIUM_PATH, when set, standing for TROVE_CHROMIUM.
 */
export function findChromium(): string | null {
  const env = process.env.CHROMIUM_PATH ? { ...process.env, TROVE_CHROMIUM: process.env.CHROMIUM_PATH } : process.env;
  try {
    return findCrawlChromium({ env });
  } catch {
    return null;
  }
}

export const NO_CHROMIUM_MESSAGE =
  'e2e tests skipped: no Chromium found. Install one (Debian/Ubuntu: `apt-get install chromium`) or set CHROMIUM_PATH to a Chromium/Chrome binary.';

// ── the renderer build ───────────────────────────────────────────────────────────────────

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * The built renderer, as electron.vite.config.ts builds it except for one CSP line (the harness
 * draws replay in an iframe, the app in a native view): a fresh Vite build into
 * `.tmp/e2e-renderer`, reused while it is newer than every renderer and core/api source.
 */
export async function rendererDir(): Promise<string> {
  const sources = Math.max(
    newestMtime(path.join(ROOT, 'renderer', 'src')),
    fs.statSync(path.join(ROOT, 'renderer', 'index.html')).mtimeMs,
    fs.statSync(path.join(ROOT, 'renderer', 'vite.shared.ts')).mtimeMs,
    newestMtime(path.join(ROOT, 'core', 'api')),
  );
  const outDir = path.join(ROOT, '.tmp', 'e2e-renderer');
  const index = path.join(outDir, 'index.html');
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs > sources) return outDir;
  const { build } = await import('vite');
  const { rendererConfig } = await import('../../renderer/vite.shared.ts');
  const config = rendererConfig({ replayFrames: true });
  await build({ ...config, configFile: false, logLevel: 'warn', build: { ...config.build, outDir, emptyOutDir: true } });
  return outDir;
}

// ── a static server for it ───────────────────────────────────────────────────────────────

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png' };

export interface StaticServer {
  origin: string;
  close(): Promise<void>;
}

export async function serveStatic(dir: string): Promise<StaticServer> {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const rel = decodeURIComponent(u.pathname === '/' ? '/index.html' : u.pathname);
    const file = path.join(dir, path.normalize(rel));
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ── the app in a page ────────────────────────────────────────────────────────────────────

export interface HarnessOptions {
  browser: Browser;
  origin: string;
  libraryDir: string;
  /** What the Import… dialog "chooses". */
  chooseFiles?: () => string[];
  /** What the "Export to folder" dialog answers (null: cancelled). */
  chooseFolder?: () => string | null;
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  /** The Record window's tab (test/e2e/record-tab.ts), standing in for electron/main/record-window.ts. */
  openRecordTab?: OpenRecordTab;
}

export interface Harness {
  page: Page;
  context: BrowserContext;
  service: AppService;
  /** Requests the replay interception answered, and any it refused. */
  replayed: { url: string; status: number }[];
  blocked: string[];
  close(): Promise<void>;
}

/**
 * Self-contained page script: window.trove from the table, over the `__troveInvoke` binding.
 * Only in the app's own top frame, as the preload only runs in our window (never in replay).
 */
function initScript(origin: string): string {
  const transport = `{
    invoke: (channel, payload) => window.__troveInvoke(channel, payload),
    subscribe: (channel, listener) => {
      const set = (window.__troveListeners[channel] ??= new Set());
      set.add(listener);
      return () => set.delete(listener);
    },
    pathForFile: () => null,
  }`;
  return `(() => {
    if (window.top !== window || location.origin !== ${JSON.stringify(origin)}) return;
    window.__troveListeners = {};
    window.__troveEmit = (channel, payload) => { for (const l of window.__troveListeners[channel] ?? []) l(payload); };
    const buildTroveApi = ${buildTroveApi.toString()};
    Object.defineProperty(window, 'trove', { value: buildTroveApi(${JSON.stringify(COMMAND_NAMES)}, ${JSON.stringify(EVENT_NAMES)}, ${transport}), enumerable: true });
  })();`;
}

export async function openApp(opts: HarnessOptions): Promise<Harness> {
  const context = await opts.browser.newContext({
    viewport: opts.viewport ?? { width: 1400, height: 900 },
    colorScheme: opts.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  let pageReady = false;

  const emit = <E extends EventName>(name: E, payload: Events[E]) => {
    if (!pageReady || page.isClosed()) return;
    page.evaluate(([channel, p]) => (window as unknown as { __troveEmit(c: string, p: unknown): void }).__troveEmit(channel, p), ['trove:event:' + name, payload] as const).catch(() => {});
  };
  const service = createAppService({ libraryDir: opts.libraryDir, emit, shell: 'browser', openRecordTab: opts.openRecordTab });

  // The replay context the iframe's requests are answered in.
  let replayCtx: { archiveId: string; at?: string; url: string; missing: MissingResources } | null = null;
  const replayed: Harness['replayed'] = [];
  const blocked: string[] = [];

  const shell: Handlers<ShellCommandName> = {
    'replay.open': async ({ archiveId, url, at }) => {
      const info = await replayInfo(service.archive(archiveId), url, at);
      const missing = new MissingResources();
      missing.reset(url);
      replayCtx = { archiveId, url, ...(at ? { at } : {}), missing };
      return { mode: 'frame', frameSrc: url, info };
    },
    'replay.bounds': () => null,
    'replay.close': () => {
      replayCtx = null;
      return null;
    },
    'shell.chooseFiles': () => opts.chooseFiles?.() ?? [],
    'export.runTo': (req) => {
      const folder = opts.chooseFolder?.() ?? null;
      return folder === null ? null : service.exportTo(req, folder);
    },
    'shell.setTheme': () => null,
    'shell.reveal': () => null,
  };
  const handlers = { ...service.handlers, ...shell };

  await page.exposeBinding('__troveInvoke', async (source, channel: unknown, payload: unknown) => {
    // Sender check, as the Electron gate does: only our page's main frame may call.
    if (source.frame !== page.mainFrame() || !source.frame.url().startsWith(opts.origin)) {
      return { ok: false, error: { code: 'FORBIDDEN_SENDER', message: 'not the app window' } };
    }
    if (typeof channel !== 'string' || !channel.startsWith(COMMAND_CHANNEL_PREFIX)) {
      return { ok: false, error: { code: 'UNKNOWN_COMMAND', message: String(channel) } };
    }
    return dispatch(handlers, channel.slice(COMMAND_CHANNEL_PREFIX.length), payload, {
      onInternalError: (name, err) => console.error(`[harness] ${name}:`, err),
    });
  });
  await page.addInitScript(initScript(opts.origin));

  // Every request is paused; the app's own are let through, the rest are replay. The session is
  // the browser's, not the page's: a replay frame from another site (or a sandboxed one) runs in
  // its own process under site isolation, and a page session would not see its requests.
  const cdp: CDPSession = await opts.browser.newBrowserCDPSession();
  const pageCdp: CDPSession = await context.newCDPSession(page);
  let mainFrameId = '';
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
  cdp.on('Fetch.requestPaused', (e: { requestId: string; request: { url: string; method: string; headers: Record<string, string> }; frameId: string; resourceType: string }) => {
    void (async () => {
      const url = e.request.url;
      try {
        if (url.startsWith(opts.origin + '/') || url.startsWith('data:') || url.startsWith('blob:')) {
          await cdp.send('Fetch.continueRequest', { requestId: e.requestId });
          return;
        }
        const ctx = replayCtx;
        if (!ctx || !replaySchemeAllowed(url) || !/^https?:/.test(url)) {
          blocked.push(url);
          await cdp.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' });
          return;
        }
        const r = await replayResponse(service.archive(ctx.archiveId), {
          url,
          ...(ctx.at ? { at: ctx.at } : {}),
          method: e.request.method,
          headers: Object.entries(e.request.headers),
        });
        replayed.push({ url, status: r.status });
        const isDocument = e.resourceType === 'Document' && e.frameId !== mainFrameId;
        if (isDocument && url !== ctx.url) ctx.missing.reset(url);
        if (r.info.kind === 'not-archived' && ctx.missing.note(url)) emit('replay.missing', { archiveId: ctx.archiveId, page: ctx.missing.page, urls: ctx.missing.list() });
        await cdp.send('Fetch.fulfillRequest', {
          requestId: e.requestId,
          responseCode: r.status,
          responsePhrase: r.statusText || undefined,
          responseHeaders: r.headers.map(([name, value]) => ({ name, value })),
          body: r.body.toString('base64'),
        });
        // A document loaded in the replay frame that is not the one asked for: a click inside it.
        if (e.resourceType === 'Document' && e.frameId !== mainFrameId && (r.status < 300 || r.status >= 400) && url !== ctx.url) {
          ctx.url = url;
          emit('replay.navigated', { archiveId: ctx.archiveId, url, info: r.info as ReplayInfo });
        }
      } catch (err) {
        blocked.push(url);
        await cdp.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'Failed' }).catch(() => {});
        // A frame removed mid-request (replay closed) leaves a stale interception id: not a failure.
        if (!page.isClosed() && !/Invalid InterceptionId/.test(String(err))) console.error('[harness] replay failed for', url, err);
      }
    })();
  });

  await page.goto(opts.origin + '/');
  mainFrameId = ((await pageCdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } }).frameTree.frame.id;
  pageReady = true;

  return {
    page,
    context,
    service,
    replayed,
    blocked,
    async close() {
      pageReady = false;
      await cdp.send('Fetch.disable').catch(() => {});
      await cdp.detach().catch(() => {});
      await context.close().catch(() => {});
      await service.close();
    },
  };
}

export function tempLibrary(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'trove-e2e-lib-'));
}

export const ARTIFACTS = path.join(ROOT, 'test-artifacts');

/** What most app e2e files start with: the renderer served, Chromium launched, the app opened over a new library. */
export interface AppSession {
  browser: Browser;
  server: StaticServer;
  app: Harness;
  page: Page;
  libraryDir: string;
  /** Closes the app, Chromium and the server, and removes the library. */
  close(): Promise<void>;
}

export async function startAppSession(opts: Omit<HarnessOptions, 'browser' | 'origin' | 'libraryDir'> & { chromium: string }): Promise<AppSession> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const { chromium, ...rest } = opts;
  const server = await serveStatic(await rendererDir());
  const { chromium: pw } = await import('playwright-core');
  const browser = await pw.launch({ executablePath: chromium, args: CHROMIUM_ARGS });
  const libraryDir = tempLibrary();
  const app = await openApp({ ...rest, browser, origin: server.origin, libraryDir });
  app.page.on('pageerror', (err) => console.error('[page error]', err));
  return {
    browser,
    server,
    app,
    page: app.page,
    libraryDir,
    async close() {
      await app.close();
      await browser.close();
      await server.close();
      fs.rmSync(libraryDir, { recursive: true, force: true });
    },
  };
}
