/**
 * One WARC file of the big-archive bench, written by a process of its own so that the bench can
 * write several at once, one per core (a 20 GB archive is twenty 1 GB files; written one after
 * the other by one process it took hours). Captures `first` to `first + count - 1`, each an
 * HTML page of Zipf-like text (big-archive-data.ts) or an incompressible image, with its request
 * record, through Trove's own WarcWriter (one gzip member per record, block and payload digests)
 * at gzip level 6: the level of Heritrix (Java's Deflater default) and of wget (zlib's default).
 *
 * Cheap where the old single-process writer was slow, with the same records: page text is
 * copied byte by byte from a precomputed word table into one Buffer (no string per word, no
 * join), and image bytes are an AES-CTR keystream (deterministic, incompressible, at memory
 * speed; the old way built an array of numbers per image). Deterministic: the same file for the
 * same arguments. The file appears under its final name only when complete (WarcWriter writes
 * `NAME.open` and renames it on close), so a kept folder can be resumed.
 *
 *   node bench/big-archive-warc.ts DIR PREFIX FIRST COUNT
 */
import crypto from 'node:crypto';
import { WarcWriter } from '../core/warc/warc-writer.ts';
import { bigArchiveUrl, isImageCapture, rng, writePageWords } from './big-archive-data.ts';


const ZEROS = Buffer.alloc(80_000);
const KEY = crypto.createHash('sha256').update('trove big-archive images').digest().subarray(0, 16);

/** `n` incompressible bytes, the same for the same capture. */
function imageBytes(i: number, n: number): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(i >>> 0, 0);
  return crypto.createCipheriv('aes-128-ctr', KEY, iv).update(ZEROS.subarray(0, n));
}

/** An HTML page of 800–4,800 words: its title the first 6, its heading the first 8, 20 links. */
function htmlPage(i: number, rand: () => number): Buffer[] {
  const words = 800 + Math.floor(rand() * 4000);
  const text = Buffer.allocUnsafe(words * 12);
  const { end, after6, after8 } = writePageWords(text, words, rand);
  let links = '';
  for (let k = 0; k < 20; k++) links += `<a href="/p/${Math.floor(rand() * 1e6)}.html">more</a> `;
  return [
    Buffer.from(`<!doctype html><html><head><title>Page ${i} `),
    text.subarray(0, after6 - 1),
    Buffer.from('</title></head><body><h1>'),
    text.subarray(0, after8 - 1),
    Buffer.from('</h1><p>'),
    text.subarray(0, end - 1),
    Buffer.from(`</p>${links}</body></html>`),
  ];
}

async function writeWarc(dir: string, prefix: string, first: number, count: number): Promise<void> {
  const w = new WarcWriter({ dir, prefix, maxBytes: Number.MAX_SAFE_INTEGER, gzipLevel: 6, warcinfo: () => ({ fields: { software: 'trove big-archive bench' } }) });
  const rand = rng(39 + first);
  const start = new Date('2026-01-01T00:00:00Z').getTime();
  for (let i = first; i < first + count; i++) {
    const image = isImageCapture(i);
    const url = bigArchiveUrl(i);
    const body = image ? [imageBytes(i, 20_000 + Math.floor(rand() * 60_000))] : htmlPage(i, rand);
    const length = body.reduce((n, b) => n + b.length, 0);
    const head = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: ${image ? 'image/jpeg' : 'text/html; charset=utf-8'}\r\nContent-Length: ${length}\r\n\r\n`);
    const id = `<urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}>`;
    const date = new Date(start + i * 1000);
    const u = new URL(url);
    await w.writeGroup([
      { type: 'response', targetUri: url, date, recordId: id, contentType: 'application/http; msgtype=response', blockParts: [head, ...body] },
      { type: 'request', targetUri: url, date, contentType: 'application/http; msgtype=request', fields: [['WARC-Concurrent-To', id]], blockParts: [Buffer.from(`GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`)] },
    ]);
  }
  await w.close();
}

const [dir, prefix, first, count] = process.argv.slice(2);
await writeWarc(dir!, prefix!, Number(first), Number(count));
