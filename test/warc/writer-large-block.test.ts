/**
 * A 200 MB response body spooled on disk goes into the WARC as a stream: memory stays flat
 * (the block is never held whole), warcio reads back the exact bytes, and crash recovery walks
 * the same file as a stream.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoverOpenWarc } from '../../core/warc/recover-open-warc.ts';
import { WarcWriter } from '../../core/warc/warc-writer.ts';
import { base32Obvious, readWarc } from './writer-read-back.ts';

const MB = 1024 * 1024;
const BODY_BYTES = 200 * MB;

let dir: string;
let spoolPath: string;
let bodyDigest: Buffer;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-large-'));
  spoolPath = path.join(dir, 'body.spool');
  // 1 MiB slices: 1/8 random, the rest text-like, so gzip has real work but stays quick.
  const text = Buffer.from('<p>The quick brown fox jumps over the lazy dog. 0123456789</p>\n'.repeat(Math.ceil(MB / 60)).slice(0, MB));
  const hash = createHash('sha1');
  const out = fs.createWriteStream(spoolPath);
  for (let written = 0; written < BODY_BYTES; written += MB) {
    const slice = Buffer.from(text);
    randomBytes(MB / 8).copy(slice, (written / MB) % 7 * (MB / 8));
    hash.update(slice);
    if (!out.write(slice)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  bodyDigest = hash.digest();
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('WarcWriter large streamed block', () => {
  it('writes a 200 MB spooled body with flat memory and warcio reads back the same bytes', async () => {
    const head = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`);
    const blockHash = createHash('sha1').update(head);
    for await (const chunk of fs.createReadStream(spoolPath, { highWaterMark: MB })) blockHash.update(chunk as Buffer);
    const blockDigest = `sha1:${base32Obvious(blockHash.digest())}`;

    const w = new WarcWriter({ dir: path.join(dir, 'warcs'), prefix: 'BIG', maxBytes: 1 << 30, hostLabel: 'h', warcinfo: () => ({ fields: {} }) });
    const spool = { length: BODY_BYTES, stream: () => fs.createReadStream(spoolPath, { highWaterMark: MB }) };

    (globalThis as { gc?: () => void }).gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const started = performance.now();
    let rec;
    try {
      [rec] = await w.writeGroup([
        {
          type: 'response',
          targetUri: 'https://example.org/huge.bin',
          date: new Date(),
          contentType: 'application/http; msgtype=response',
          fields: [['WARC-Payload-Digest', `sha1:${base32Obvious(bodyDigest)}`]],
          blockParts: [head, spool],
          blockDigest,
        },
      ]);
      await w.close();
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    const growthMb = (peak - baseline) / MB;
    const seconds = (performance.now() - started) / 1000;
    // A buffered block would add at least 200 MB; streaming stays within a few slices.
    expect(growthMb, `rss grew ${growthMb.toFixed(1)} MB while writing (${seconds.toFixed(1)} s)`).toBeLessThan(48);

    const file = w.filesClosed[0]!;
    const recs = await readWarc(file, { keepBlocks: false });
    expect(recs.map((r) => r.type)).toEqual(['warcinfo', 'response']);
    const resp = recs[1]!;
    expect(resp.offset).toBe(rec!.offset);
    expect(resp.contentLength).toBe(head.length + BODY_BYTES);
    expect(resp.blockLength).toBe(head.length + BODY_BYTES);
    expect(resp.sha1).toBe(blockDigest);
    expect(resp.header('WARC-Block-Digest')).toBe(blockDigest);
    expect(fs.statSync(file).size).toBe(rec!.offset + rec!.length);

    // Recovery walks the same file as a stream too: a whole .open file is kept byte for byte.
    fs.renameSync(file, `${file}.open`);
    const before = process.memoryUsage().rss;
    let recoverPeak = before;
    const sampler2 = setInterval(() => {
      recoverPeak = Math.max(recoverPeak, process.memoryUsage().rss);
    }, 5);
    const recovered = await recoverOpenWarc(`${file}.open`).finally(() => clearInterval(sampler2));
    expect(recovered).toMatchObject({ finalPath: file, records: 2, cutBytes: 0, note: null });
    expect((recoverPeak - before) / MB).toBeLessThan(48);
  });
});
