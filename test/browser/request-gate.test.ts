/**
 * The recorder's request gate in real Chromium against a real server on 127.0.0.1 (port 0): what
 * the gate refuses is failed before it is sent (the server's own log never sees it, the page's
 * script sees a failed load), what it allows is requested and recorded as before; an
 * asynchronous gate holds the request until it answers, and each redirect hop is asked again.
 * The allowed exchanges are written to a WARC and read back with warcio.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE } from '../e2e/harness.ts';
import { captureInBrowser, newWarcWriter, warcSink } from '../helpers/browser-archive.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

const PNG = Buffer.from('89504e470d0a1a0a0000', 'hex');

describe.skipIf(!chromium)('PageRecorder request gate', () => {
  let browser: Browser;
  let server: LocalServer;
  let tmp: string;
  const hits: string[] = [];

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-gate-'));
    server = await startHttpServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(
          '<title>gate</title><img src="/ok.png"><img src="/no.png">' +
            `<p id="r">pending</p><script>fetch('/private/x.json').then(() => 'sent', () => 'failed').then((s) => { document.getElementById('r').textContent = s; });</script>`,
        );
      } else if (req.url === '/redirects') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<title>r</title><img src="/go/ok"><img src="/go/private">');
      } else if (req.url === '/go/ok' || req.url === '/go/private') {
        res.writeHead(302, { location: req.url === '/go/ok' ? '/ok.png' : '/private/r.png', 'content-length': '0' }).end();
      } else if (req.url === '/ok.png' || req.url === '/no.png' || req.url === '/private/r.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      } else if (req.url === '/private/x.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else res.writeHead(404).end();
    });
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('fails refused requests unsent and records the allowed ones', async () => {
    hits.length = 0;
    const asked: [string, string][] = [];
    const writer = newWarcWriter(path.join(tmp, 'warcs'));
    const sink = warcSink(writer);
    const capture = await captureInBrowser(browser, server.origin + '/', {
      sink,
      spoolDir: tmp,
      behaviors: { screenshot: false },
      // Asynchronous, as a gate that looks something up would be.
      allowRequest: async (url, type) => {
        asked.push([new URL(url).pathname, type]);
        await new Promise((r) => setTimeout(r, 5));
        const p = new URL(url).pathname;
        return p !== '/no.png' && !p.startsWith('/private/');
      },
    });
    await writer.close();

    // The server never saw what the gate refused.
    expect(hits).toContain('/');
    expect(hits).toContain('/ok.png');
    expect(hits).not.toContain('/no.png');
    expect(hits).not.toContain('/private/x.json');
    expect([...capture.blocked].sort()).toEqual([`${server.origin}/no.png`, `${server.origin}/private/x.json`]);
    // The page's own script saw the load fail.
    expect(capture.text).toContain('failed');
    // The gate was asked about every request, with its resource type.
    expect(asked).toEqual(expect.arrayContaining([['/', 'Document'], ['/ok.png', 'Image'], ['/no.png', 'Image'], ['/private/x.json', 'XHR']]));
    expect(capture.problems).toEqual([]);

    // What was allowed is recorded whole: read back by warcio.
    const records = await readWarcDir(path.join(tmp, 'warcs'));
    const responses = new Map(records.filter((r) => r.type === 'response').map((r) => [r.targetUri!, r]));
    expect(responses.has(`${server.origin}/`)).toBe(true);
    expect(responses.has(`${server.origin}/no.png`)).toBe(false);
    expect(responses.has(`${server.origin}/private/x.json`)).toBe(false);
    expect(responses.get(`${server.origin}/ok.png`)!.payload).toEqual(PNG);
  }, 60_000);

  it('asks again at each redirect hop: a refused target is not sent, an allowed chain is recorded hop by hop', async () => {
    hits.length = 0;
    const sink = warcSink(newWarcWriter(path.join(tmp, 'warcs3')));
    const capture = await captureInBrowser(browser, server.origin + '/redirects', {
      sink,
      spoolDir: tmp,
      behaviors: { screenshot: false },
      allowRequest: (url) => !new URL(url).pathname.startsWith('/private/'),
    });
    expect(hits).toEqual(expect.arrayContaining(['/redirects', '/go/ok', '/ok.png', '/go/private']));
    expect(hits).not.toContain('/private/r.png');
    expect(capture.blocked).toEqual([`${server.origin}/private/r.png`]);
    const recorded = sink.exchanges.map((x) => `${x.status} ${new URL(x.url).pathname}`);
    expect(recorded).toEqual(expect.arrayContaining(['302 /go/ok', '200 /ok.png', '302 /go/private']));
    expect(recorded.some((r) => r.endsWith('/private/r.png'))).toBe(false);
    expect(capture.problems).toEqual([]);
  }, 60_000);

  it('a gate that throws refuses (fail closed) and says why', async () => {
    hits.length = 0;
    const sink = warcSink(newWarcWriter(path.join(tmp, 'warcs2')));
    const capture = await captureInBrowser(browser, server.origin + '/', {
      sink,
      spoolDir: tmp,
      behaviors: { screenshot: false },
      allowRequest: (url) => {
        if (new URL(url).pathname === '/ok.png') throw new Error('no answer');
        return new URL(url).pathname === '/';
      },
    });
    expect(hits).toEqual(['/']);
    expect(capture.blocked).toContain(`${server.origin}/ok.png`);
    expect(capture.problems.map((p) => p.message)).toEqual([expect.stringContaining('no answer')]);
  }, 60_000);
});
