/**
 * A replayed page cannot reach out (issue #16 item 3), in real Chromium through the harness's
 * replay interception: an archived page whose script tries every way out — a WebSocket to a live
 * loopback TCP port (also from a fresh child frame), an RTCPeerConnection with a STUN server at a
 * loopback UDP listener (also with a child frame's constructor), a service worker registration,
 * fetch, XHR and an image aimed at a live loopback HTTP server — and the listeners see no TCP
 * connection, no UDP packet and no request.
 */
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE, openApp, rendererDir, serveStatic, tempLibrary, type Harness, type StaticServer } from './harness.ts';
import { html, writeWarc } from '../replay/warc-fixture.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

const PAGE_URL = 'http://isolation.example/';

/** The archived page: each attempt records how it ended in window.__results; __done when all settled. */
function escapePage(tcp: number, udp: number, web: number): string {
  return `<!doctype html>
<html><head><title>Escapes</title></head>
<body><h1>Trying every way out</h1>
<img id="img" src="http://127.0.0.1:${web}/img.png">
<script>
window.__results = {};
const all = [];
const attempt = (name, f) => all.push(Promise.resolve().then(f).then(
  (v) => { window.__results[name] = 'opened: ' + v; },
  (e) => { window.__results[name] = 'refused: ' + ((e && e.name) || e); }));
const childWindow = () => { const f = document.createElement('iframe'); document.body.appendChild(f); return f; };
const socket = (WS) => new Promise((res, rej) => {
  const ws = new WS('ws://127.0.0.1:${tcp}/');
  ws.onopen = () => res('open'); ws.onerror = () => rej({ name: 'error event' });
});
const gather = async (PC) => {
  const pc = new PC({ iceServers: [{ urls: 'stun:127.0.0.1:${udp}' }] });
  pc.createDataChannel('x');
  await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== 'complete') await new Promise((r) => pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && r()));
  const types = (pc.localDescription.sdp.match(/typ [a-z]+/g) || []).join(',');
  pc.close();
  return 'gathered ' + (types || 'no candidates');
};
attempt('websocket', () => socket(WebSocket));
attempt('websocket-wss', () => new Promise((res, rej) => { const ws = new WebSocket('wss://127.0.0.1:${tcp}/'); ws.onopen = () => res('open'); ws.onerror = () => rej({ name: 'error event' }); }));
attempt('websocket-child-frame', () => socket(childWindow().contentWindow.WebSocket));
attempt('webrtc', () => gather(RTCPeerConnection));
attempt('webrtc-child-by-index', () => { childWindow(); return gather(window[window.length - 1].RTCPeerConnection); });
attempt('service-worker', () => navigator.serviceWorker.register('/sw.js').then(() => 'registered'));
attempt('fetch', () => fetch('http://127.0.0.1:${web}/fetch', { mode: 'no-cors' }).then((r) => r.type));
attempt('xhr', () => new Promise((res, rej) => { const x = new XMLHttpRequest(); x.open('GET', 'http://127.0.0.1:${web}/xhr'); x.onload = () => res(x.status); x.onerror = () => rej({ name: 'error event' }); x.send(); }));
attempt('img', () => new Promise((res, rej) => { const i = document.getElementById('img'); if (i.complete) (i.naturalWidth ? res('loaded') : rej({ name: 'error' })); else { i.onload = () => res('loaded'); i.onerror = () => rej({ name: 'error' }); } }));
attempt('beacon', () => String(navigator.sendBeacon('http://127.0.0.1:${web}/beacon', 'x')));
Promise.all(all).then(() => { window.__done = true; });
</script>
</body></html>`;
}

describe.skipIf(!chromium)('Replay isolation in Chromium', () => {
  let browser: Browser;
  let server: StaticServer;
  let app: Harness;
  let page: Page;
  let libraryDir: string;
  let archiveId = '';
  const tcpConnections: string[] = [];
  const udpPackets: string[] = [];
  const httpRequests: string[] = [];
  let tcp: net.Server;
  let udp: dgram.Socket;
  let web: http.Server;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    tcp = net.createServer((s) => {
      tcpConnections.push(`${s.remoteAddress}:${s.remotePort}`);
      s.destroy();
    });
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    udp = dgram.createSocket('udp4');
    udp.on('message', (_m, rinfo) => udpPackets.push(`${rinfo.address}:${rinfo.port}`));
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    web = http.createServer((req, res) => {
      httpRequests.push(req.url ?? '');
      res.end('live');
    });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));

    libraryDir = tempLibrary();
    const warc = path.join(libraryDir, 'isolation.warc.gz');
    const page = escapePage((tcp.address() as AddressInfo).port, udp.address().port, (web.address() as AddressInfo).port);
    await writeWarc(warc, [
      { url: PAGE_URL, date: '2024-05-01T10:00:00Z', headers: html([['Content-Security-Policy', "default-src * 'unsafe-inline'; connect-src * ws: wss:"]]), body: page },
      { url: 'http://isolation.example/sw.js', date: '2024-05-01T10:00:01Z', headers: [['Content-Type', 'text/javascript']], body: 'self.addEventListener("fetch", () => {});' },
    ]);

    server = await serveStatic(await rendererDir());
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
    app = await openApp({ browser, origin: server.origin, libraryDir, viewport: { width: 1280, height: 800 } });
    const imported = await app.service.handlers['library.import']({ files: [warc], name: 'Isolation', copy: false });
    archiveId = imported.id;
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.close();
    tcp?.close();
    udp?.close();
    web?.closeAllConnections();
    web?.close();
    if (libraryDir) fs.rmSync(libraryDir, { recursive: true, force: true });
  });

  it('every escape from the replayed page is refused and nothing reaches the listeners', async () => {
    page = app.page;
    await page.getByTestId('nav-library').click();
    await page.getByTestId(`browse-${archiveId}`).click();
    await page.getByTestId('filter-url').fill(PAGE_URL);
    await expect.poll(() => page.getByTestId('record-row').count(), { timeout: 10_000 }).toBe(1);
    await page.getByTestId('record-row').first().click();
    await page.getByTestId('replay-button').click();
    const frame = await replayFrame(page);
    // Until every attempt has settled, or one got out (then the listener lists below say which).
    const leaked = () => tcpConnections.length + udpPackets.length + httpRequests.length > 0;
    await expect.poll(async () => leaked() || (await frame.evaluate(() => (window as unknown as { __done?: boolean }).__done === true)), { timeout: 20_000 }).toBe(true);
    expect({ tcpConnections, udpPackets, httpRequests }).toEqual({ tcpConnections: [], udpPackets: [], httpRequests: [] });
    const results = (await frame.evaluate(() => (window as unknown as { __results: Record<string, string> }).__results)) as Record<string, string>;
    console.log('replay escape attempts:', results);

    expect(results.websocket).toMatch(/^refused: SecurityError/);
    expect(results['websocket-wss']).toMatch(/^refused/);
    expect(results['websocket-child-frame']).toMatch(/^refused/);
    expect(results.webrtc).toMatch(/^refused: SecurityError/);
    // Reached through window[n] the constructor is the child's own: it may run, but the host's
    // WebRTC policy gives it nothing to send over UDP.
    expect(results['webrtc-child-by-index']).not.toMatch(/typ (srflx|relay)/);
    expect(results['service-worker']).toMatch(/^refused/);
    // The guard is in the page, our CSP replaced the archived one.
    expect(await frame.evaluate(() => Object.hasOwn(window, '__troveReplayGuard'))).toBe(true);

    expect(tcpConnections).toEqual([]);
    expect(udpPackets).toEqual([]);
    expect(httpRequests).toEqual([]);
    // Every http(s) request was answered from the archive (a miss by the not-archived page).
    expect(app.replayed.some((r) => r.url.startsWith('http://127.0.0.1:') && r.status === 404)).toBe(true);
    for (const [w, h] of [[1280, 800], [1024, 700]] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.screenshot({ path: path.join(ARTIFACTS, `12-replay-isolation-${w}x${h}.png`) });
    }
  });
});

async function replayFrame(page: Page): Promise<Frame> {
  let found: Frame | undefined;
  await expect
    .poll(
      () => {
        found = page.frames().find((f) => f !== page.mainFrame() && f.url().startsWith(PAGE_URL));
        return found !== undefined;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  return found!;
}
