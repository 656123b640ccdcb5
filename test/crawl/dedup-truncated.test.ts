/**
 * A truncated response is never a deduplication original, as in Heritrix: a record marked
 * WARC-Truncated holds only part of its payload, so a later complete capture whose payload has
 * the same digest (the same bytes as that prefix) is stored in full, not as a revisit of the cut
 * record, whether the cut record is in this crawl or in an earlier one (--dedup-from).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';
import { readWarcDir, type ReadRecord } from '../helpers/read-warcs.ts';

const CUT = 1024;
// /big is cut at CUT bytes; /small is exactly those CUT bytes, complete.
const BIG = Buffer.from(`<!doctype html><a href="/small">small</a>${'x'.repeat(3 * CUT)}`);
const SMALL = BIG.subarray(0, CUT);
// One fetch at a time: /small is fetched only once /big's records are indexed.
const settings = { dedup: 'digest' as const, maxBodyBytes: CUT, concurrency: 1, perHost: 1, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 };

const capture = (records: ReadRecord[], url: string) => records.find((r) => r.targetUri === url && (r.type === 'response' || r.type === 'revisit'))!;

describe('truncated responses and deduplication', () => {
  let server: LocalServer;
  let root: string;
  beforeAll(async () => {
    server = await startHttpServer((q, r) => {
      const body = q.url === '/big' ? BIG : q.url === '/small' ? SMALL : null;
      if (!body) {
        r.writeHead(404).end();
        return;
      }
      r.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': body.length });
      r.end(body);
    });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-dedup-cut-'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a complete capture with the payload digest of a truncated one in the same crawl is stored in full', async () => {
    const dir = path.join(root, 'same');
    await (await startCrawl({ dir, settings: { ...settings, scope: 'host', seeds: [`${server.origin}/big`] } })).finished();
    const records = await readWarcDir(path.join(dir, 'warcs'));
    const big = capture(records, `${server.origin}/big`);
    const small = capture(records, `${server.origin}/small`);
    expect(big.warcHeaders['WARC-Truncated']).toBe('length');
    // The premise: the two payloads have the same digest.
    expect(small.warcHeaders['WARC-Payload-Digest']).toBe(big.warcHeaders['WARC-Payload-Digest']);
    expect(small.type).toBe('response');
    expect(small.payload.equals(SMALL)).toBe(true);
  }, 60_000);

  it('nor does a truncated capture of an earlier crawl (--dedup-from) make one a revisit', async () => {
    const earlier = path.join(root, 'earlier');
    await (await startCrawl({ dir: earlier, settings: { ...settings, scope: 'page', seeds: [`${server.origin}/big`] } })).finished();
    const dir = path.join(root, 'later');
    await (await startCrawl({ dir, settings: { ...settings, scope: 'page', seeds: [`${server.origin}/small`], dedupFrom: [earlier] } })).finished();
    const big = capture(await readWarcDir(path.join(earlier, 'warcs')), `${server.origin}/big`);
    const small = capture(await readWarcDir(path.join(dir, 'warcs')), `${server.origin}/small`);
    expect(big.warcHeaders['WARC-Truncated']).toBe('length');
    expect(small.warcHeaders['WARC-Payload-Digest']).toBe(big.warcHeaders['WARC-Payload-Digest']);
    expect(small.type).toBe('response');
  }, 60_000);
});
