/**
 * What the recorder's request gate costs (issue 17: robots.txt before a browser request is
 * sent). With a gate, Fetch pauses every request twice (Request and Response stages) instead of
 * once, one more DevTools round trip per request. One page with many images on a loopback
 * server is captured in Chromium without a gate and with an allow-all gate, alternated, and the
 * medians are printed as ratios (gate / no gate) of wall time and of this process's CPU (the
 * recorder's side of the protocol). `--runs=N` (default 5), `--images=N` (default 200).
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium as pw } from 'playwright-core';
import { findChromium } from '../core/browser/find-chromium.ts';
import { capturePage } from '../core/browser/capture-page.ts';
import type { CdpSession } from '../core/browser/cdp-session.ts';
import type { RecordSink } from '../core/browser/recorded-exchange.ts';

const arg = (name: string, dflt: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt);
const RUNS = arg('runs', 5);
const IMAGES = arg('images', 200);
const PNG = Buffer.from('89504e470d0a1a0a0000', 'hex');

const server = http.createServer((req, res) => {
  if (req.url === '/') {
    let html = '<title>gate bench</title>';
    for (let i = 0; i < IMAGES; i++) html += `<img src="/img/${i}.png" width="1" height="1">`;
    res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  } else res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) }).end(PNG);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const browser = await pw.launch({ executablePath: findChromium(), args: ['--headless=new', '--no-sandbox'] });
const spool = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-gate-bench-'));

async function once(gated: boolean): Promise<{ ms: number; cpuMs: number; exchanges: number }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const session = (await context.newCDPSession(page)) as unknown as CdpSession;
    let exchanges = 0;
    const sink: RecordSink = {
      async exchange(x) {
        exchanges++;
        if (!Buffer.isBuffer(x.body)) fs.rmSync(x.body.path, { force: true });
      },
    };
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await capturePage(session, origin + '/', {
      sink,
      spoolDir: spool,
      behaviors: { screenshot: false, quietMs: 100 },
      ...(gated ? { allowRequest: () => true } : {}),
    });
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { ms, cpuMs: (cpu.user + cpu.system) / 1000, exchanges };
  } finally {
    await context.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  await once(false); // warm-up: the browser's first page
  const plain: { ms: number; cpuMs: number }[] = [];
  const gated: { ms: number; cpuMs: number }[] = [];
  let counts = '';
  for (let i = 0; i < RUNS; i++) {
    const a = await once(false);
    const b = await once(true);
    plain.push(a);
    gated.push(b);
    counts = `${a.exchanges} / ${b.exchanges}`;
  }
  const [pm, gm] = [median(plain.map((r) => r.ms)), median(gated.map((r) => r.ms))];
  const [pc, gc] = [median(plain.map((r) => r.cpuMs)), median(gated.map((r) => r.cpuMs))];
  console.log(`one page, ${IMAGES} images, ${RUNS} alternated runs, exchanges recorded (no gate / gate): ${counts}; load ${os.loadavg()[0]!.toFixed(2)}`);
  console.log('| capture | wall ms (median) | node CPU ms (median) |');
  console.log('|---|---:|---:|');
  console.log(`| no gate | ${pm.toFixed(0)} | ${pc.toFixed(0)} |`);
  console.log(`| allow-all gate | ${gm.toFixed(0)} | ${gc.toFixed(0)} |`);
  console.log(`ratio gate / no gate: wall ${(gm / pm).toFixed(2)}×, node CPU ${(gc / pc).toFixed(2)}×`);
} finally {
  await browser.close();
  server.close();
  fs.rmSync(spool, { recursive: true, force: true });
}
