/**
 * A synthetic WARC for the benchmarks that need one without a site to crawl: 2,000 pages of
 * 40 KB, each response with its request record, written by Trove's own WarcWriter.
 */
import fs from 'node:fs';
import path from 'node:path';
import { WarcWriter } from '../core/warc/warc-writer.ts';

/** Writes it into `dir` (created) and returns the .warc.gz path. */
export async function writeSyntheticWarc(dir: string): Promise<string> {
  fs.mkdirSync(dir);
  const w = new WarcWriter({ dir, prefix: 'BENCH', maxBytes: 1e12, warcinfo: () => ({ fields: { software: 'trove bench' } }) });
  for (let i = 0; i < 2000; i++) {
    const body = Buffer.from(`<html><title>Page ${i}</title><body>${'lorem ipsum '.repeat(3300)}</body></html>`);
    const head = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\n\r\n`);
    const id = `<urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}>`;
    await w.writeGroup([
      { type: 'response', targetUri: `http://example.org/p/${i}.html`, date: new Date(), recordId: id, contentType: 'application/http; msgtype=response', blockParts: [head, body] },
      { type: 'request', targetUri: `http://example.org/p/${i}.html`, date: new Date(), contentType: 'application/http; msgtype=request', fields: [['WARC-Concurrent-To', id]], blockParts: [Buffer.from(`GET /p/${i}.html HTTP/1.1\r\nHost: example.org\r\n\r\n`)] },
    ]);
  }
  await w.close();
  return path.join(dir, fs.readdirSync(dir).find((n) => n.endsWith('.warc.gz'))!);
}
