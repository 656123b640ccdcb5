/**
 * A loopback server for ReplayWeb.page as an independent WACZ client: its published app
 * (`index.html`, `ui.js`, `sw.js` from the npm package `replaywebpage`) and the WACZ files under
 * test, the latter with HTTP Range (single ranges, RFC 9110 §14), since ReplayWeb.page reads a
 * WACZ by ranges: the ZIP's central directory from the end, then the idx, index blocks and
 * records it needs. Every request is logged, so a test can show the package was read by ranges.
 * Hand-written because the repository has no static-file server with Range support, and it is
 * thirty lines.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { repoRoot } from '../helpers/corpus.ts';

/** The installed `replaywebpage` package folder (its exports map hides package.json from resolve). */
export const REPLAYWEBPAGE_DIR = path.join(repoRoot, 'node_modules', 'replaywebpage');

const APP: Record<string, [string, string]> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/index.html': ['index.html', 'text/html; charset=utf-8'],
  '/ui.js': ['ui.js', 'text/javascript'],
  '/sw.js': ['sw.js', 'text/javascript'],
};

export interface ReplayWebPageServer {
  origin: string;
  /** Serve `file` at `/<name>`. */
  addWacz(name: string, file: string): string;
  requests: { method: string; path: string; range: string | undefined; status: number }[];
  close(): Promise<void>;
}

export async function serveReplayWebPage(): Promise<ReplayWebPageServer> {
  const waczs = new Map<string, string>();
  const requests: ReplayWebPageServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    const log = (status: number) => requests.push({ method: req.method ?? '', path: p, range: req.headers.range, status });
    const app = APP[p];
    const file = app ? path.join(REPLAYWEBPAGE_DIR, app[0]) : waczs.get(p);
    if (!file) {
      log(404);
      res.writeHead(404).end();
      return;
    }
    const size = fs.statSync(file).size;
    const headers: Record<string, string> = { 'content-type': app ? app[1] : 'application/wacz', 'accept-ranges': 'bytes', 'cache-control': 'no-store' };
    let start = 0;
    let end = size - 1;
    let status = 200;
    const range = req.headers.range;
    if (range) {
      const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
      if (!m || (m[1] === '' && m[2] === '')) {
        log(416);
        res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
        return;
      }
      if (m[1] === '') start = Math.max(0, size - Number(m[2]));
      else {
        start = Number(m[1]);
        if (m[2] !== '') end = Math.min(Number(m[2]), size - 1);
      }
      if (start >= size || start > end) {
        log(416);
        res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
        return;
      }
      status = 206;
      headers['content-range'] = `bytes ${start}-${end}/${size}`;
    }
    headers['content-length'] = String(end - start + 1);
    log(status);
    res.writeHead(status, headers);
    if (req.method === 'HEAD' || end < start) res.end();
    else fs.createReadStream(file, { start, end }).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    addWacz(name, file) {
      waczs.set(`/${name}`, file);
      return `${origin}/${name}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
