/**
 * Decompression bombs: 200 MB of zeros in about 200 KB (gzip) or 40 KB (brotli). Decoding must
 * stop at maxBytes and memory must stay flat. In its own file so the process's peak RSS is not
 * already raised by other tests; the bombs are built by streaming so building them does not
 * raise it either.
 */
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeBody, decodeBodyStream } from '../../core/extract/decode-body.ts';

const MB = 1024 * 1024;
const BOMB_BYTES = 200 * MB;
const CAP = 4 * MB;
/** Peak RSS may grow by this much at most while decoding a 200 MB bomb (an uncapped decode grows it by ~414 MB). */
const RSS_BUDGET = 128 * MB;

async function compressZeros(encoder: zlib.Gzip | zlib.BrotliCompress, total: number): Promise<Buffer> {
  const out: Buffer[] = [];
  encoder.on('data', (c: Buffer) => out.push(c));
  const done = new Promise<void>((resolve, reject) => {
    encoder.on('end', resolve);
    encoder.on('error', reject);
  });
  const zeros = Buffer.alloc(MB);
  for (let written = 0; written < total; written += MB) {
    if (!encoder.write(zeros)) await new Promise((r) => encoder.once('drain', r));
  }
  encoder.end();
  await done;
  return Buffer.concat(out);
}

function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

let gzipBomb: Buffer;
let brotliBomb: Buffer;

beforeAll(async () => {
  gzipBomb = await compressZeros(zlib.createGzip({ level: 9 }), BOMB_BYTES);
  brotliBomb = await compressZeros(zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }), BOMB_BYTES);
});

describe('decompression bombs', () => {
  it('are small on the wire', () => {
    expect(gzipBomb.length).toBeLessThan(300 * 1024);
    expect(brotliBomb.length).toBeLessThan(300 * 1024);
  });

  for (const [name, coding] of [
    ['gzip', 'gzip'],
    ['brotli', 'br'],
  ] as const) {
    it(`${name}: decodeBodyStream stops at maxBytes with flat memory`, async () => {
      const bomb = coding === 'gzip' ? gzipBomb : brotliBomb;
      const before = peakRss();
      const r = await decodeBodyStream(Readable.from([bomb]), coding, CAP);
      expect(r.truncated).toBe(true);
      expect(r.error).toBeUndefined();
      expect(r.body.length).toBe(CAP);
      expect(r.body.every((b) => b === 0)).toBe(true);
      expect(peakRss() - before).toBeLessThan(RSS_BUDGET);
    });

    it(`${name}: decodeBody never returns more than maxBytes, with flat memory`, () => {
      const bomb = coding === 'gzip' ? gzipBomb : brotliBomb;
      const before = peakRss();
      const r = decodeBody(bomb, coding, CAP);
      expect(r.truncated).toBe(true);
      expect(r.error).toBeUndefined();
      expect(r.body.length).toBeLessThanOrEqual(CAP);
      expect(r.body.length).toBeGreaterThan(CAP / 2);
      expect(peakRss() - before).toBeLessThan(RSS_BUDGET);
    });
  }

  it('a bomb inside a stacked encoding is capped at every layer', async () => {
    // br over gzip: the outer layer is small, the inner one explodes.
    const stacked = zlib.brotliCompressSync(gzipBomb);
    const before = peakRss();
    const r = await decodeBodyStream(Readable.from([stacked]), 'gzip, br', CAP);
    expect(r).toMatchObject({ truncated: true });
    expect(r.body.length).toBe(CAP);
    const s = decodeBody(stacked, 'gzip, br', CAP);
    expect(s.truncated).toBe(true);
    expect(s.body.length).toBeLessThanOrEqual(CAP);
    expect(peakRss() - before).toBeLessThan(RSS_BUDGET);
  });
});
