/**
 * A WARC made at test time to show that import, check and the exports keep memory flat: many
 * small captures (pages with text, their request records) so that anything holding every row or
 * line in memory shows on a capped heap, and a few big incompressible bodies (written at gzip
 * level 0, so making them is a copy) so that anything reading a whole record or file into memory
 * shows in RSS. Deterministic: the same bytes on every run.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { WarcWriter } from '../../core/warc/warc-writer.ts';
import { prng } from './seeded-random.ts';

const WORDS = 'archive web crawl page record capture index replay search text news report city council meeting budget school library museum river bridge'.split(' ');

export interface BigWarcSpec {
  pages: number;
  bigBodies: number;
  bigBodyBytes: number;
}

/** Writes the WARC into `dir` (created); returns its path and size. */
export async function writeBigArchiveWarc(dir: string, spec: BigWarcSpec): Promise<{ file: string; bytes: number }> {
  fs.mkdirSync(dir, { recursive: true });
  const w = new WarcWriter({ dir, prefix: 'FLAT', maxBytes: 1e13, gzipLevel: 0, warcinfo: () => ({ fields: { software: 'trove flat-memory test' } }) });
  const rand = prng(39);
  const start = Date.UTC(2026, 0, 1);
  const every = Math.max(1, Math.floor(spec.pages / Math.max(1, spec.bigBodies)));
  let big = 0;
  for (let i = 0; i < spec.pages; i++) {
    const text = Array.from({ length: 40 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
    const url = `http://site${i % 20}.example.org/p/${i}.html`;
    await writeCapture(w, url, 'text/html', Buffer.from(`<html><head><title>Page ${i}</title></head><body><p>${text}</p></body></html>`), i, new Date(start + i * 1000));
    if (i % every === every - 1 && big < spec.bigBodies) {
      big++;
      await writeCapture(w, `http://site0.example.org/video/${big}.mp4`, 'video/mp4', crypto.randomBytes(spec.bigBodyBytes), spec.pages + big, new Date(start + i * 1000));
    }
  }
  await w.close();
  const name = fs.readdirSync(dir).find((n) => n.endsWith('.warc.gz'))!;
  const file = path.join(dir, name);
  return { file, bytes: fs.statSync(file).size };
}

async function writeCapture(w: WarcWriter, url: string, type: string, body: Buffer, n: number, date: Date): Promise<void> {
  const id = `<urn:uuid:00000000-0000-4000-8000-${String(n).padStart(12, '0')}>`;
  const head = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n`);
  await w.writeGroup([
    { type: 'response', targetUri: url, date, recordId: id, contentType: 'application/http; msgtype=response', blockParts: [head, body] },
    { type: 'request', targetUri: url, date, contentType: 'application/http; msgtype=request', fields: [['WARC-Concurrent-To', id]], blockParts: [Buffer.from(`GET ${new URL(url).pathname} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n\r\n`)] },
  ]);
}
