/**
 * A recorded exchange as the crawl's capture records, without a browser: the heads rebuilt from
 * CDP's fields (an HTTP/2 exchange: pseudo-headers, no Host), a POST body in the request record,
 * a spooled body streamed into the record, written by WarcWriter and read back with warcio.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCaptureGroup } from '../../core/crawl/capture-records.ts';
import { exchangeCaptureInput, exchangeFetchResult, requestBlock, responseHead } from '../../core/browser/exchange-records.ts';
import type { RecordedExchange } from '../../core/browser/recorded-exchange.ts';
import { base32 } from '../../core/fetch/digest.ts';
import { newWarcWriter } from '../helpers/browser-archive.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-exchange-records-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const sha1 = (b: Buffer) => 'sha1:' + base32(createHash('sha1').update(b).digest());

const h2Post: RecordedExchange = {
  url: 'https://api.example/save?x=1#frag',
  method: 'POST',
  requestHeaders: [
    [':method', 'POST'],
    [':authority', 'api.example'],
    ['content-type', 'application/json'],
  ],
  requestBody: Buffer.from('{"a":1}'),
  status: 201,
  statusText: 'Created',
  httpVersion: 'HTTP/1.1',
  responseHeaders: [
    [':status', '201'],
    ['content-type', 'application/json'],
    ['content-encoding', 'br'],
    ['content-length', '11'],
  ],
  body: Buffer.from('{"ok":true}'),
  date: new Date('2026-02-03T04:05:06Z'),
  remoteAddress: '192.0.2.7',
  resourceType: 'Fetch',
  isPageDocument: false,
};

describe('exchange-records', () => {
  it('rebuilds the request head with a Host and the body, the response head for the decoded body', () => {
    expect(requestBlock(h2Post).toString()).toBe('POST /save?x=1 HTTP/1.1\r\nHost: api.example\r\ncontent-type: application/json\r\n\r\n{"a":1}');
    expect(responseHead(h2Post, 11).toString()).toBe('HTTP/1.1 201 Created\r\ncontent-type: application/json\r\nx-orig-content-encoding: br\r\ncontent-length: 11\r\n\r\n');
  });

  it('gives the FetchResult the crawl indexes: status, stored headers, digests, peer address', async () => {
    const f = await exchangeFetchResult(h2Post);
    expect(f.status).toBe(201);
    expect(f.payloadDigest).toBe(sha1(Buffer.from('{"ok":true}')));
    expect(f.blockDigest).toBe(sha1(Buffer.concat([f.responseHead!, Buffer.from('{"ok":true}')])));
    expect(f.headers.find(([k]) => k === 'content-encoding')).toBeUndefined();
    expect(f.remoteAddress).toBe('192.0.2.7');
    expect(f.startedAt).toBe(h2Post.date.getTime());
  });

  it('writes response and request records warcio reads back, a spooled body streamed from its file', async () => {
    const spooled = path.join(tmp, 'body.bin');
    const big = Buffer.alloc(300_000, 7);
    fs.writeFileSync(spooled, big);
    const image: RecordedExchange = { ...h2Post, url: 'https://cdn.example/i.png', method: 'GET', requestBody: undefined, status: 200, statusText: 'OK', responseHeaders: [['Content-Type', 'image/png']], body: { path: spooled, size: big.length } };
    const dir = path.join(tmp, 'warcs');
    const writer = newWarcWriter(dir);
    for (const x of [h2Post, image]) {
      const input = await exchangeCaptureInput(x, { metadata: { via: null, hopsPath: 'E', fetchTimeMs: 0, outlinks: [] } });
      await writer.writeGroup(buildCaptureGroup(input).records);
      await input.fetch.body!.dispose();
    }
    await writer.close();
    expect(fs.existsSync(spooled)).toBe(false); // the capture's spool owned the file and removed it
    const recs = await readWarcDir(dir);
    expect(recs.map((r) => r.type)).toEqual(['warcinfo', 'response', 'request', 'metadata', 'response', 'request', 'metadata']);
    const [post, postReq, , img] = recs.slice(1);
    expect(post!.targetUri).toBe('https://api.example/save?x=1'); // no fragment in a WARC target
    expect(post!.status).toBe(201);
    expect(post!.warcHeaders['WARC-IP-Address']).toBe('192.0.2.7');
    expect(post!.payload.toString()).toBe('{"ok":true}');
    expect(postReq!.payload.toString()).toBe('{"a":1}');
    expect(img!.payload.equals(big)).toBe(true);
    expect(img!.warcHeaders['WARC-Payload-Digest']).toBe(sha1(big));
  });
});
