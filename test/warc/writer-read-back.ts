/**
 * Reading WARC output back with warcio.js (an independent reader), for the writer and recovery
 * tests. Block digests are recomputed here with node:crypto and a base32 written differently
 * from the writer's, so a shared bug cannot hide itself.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { WARCParser } from 'warcio';

export interface ReadBackRecord {
  type: string;
  id: string;
  headers: [string, string][];
  header(name: string): string | undefined;
  concurrentTo: string[];
  contentLength: number;
  /** Bytes of the block actually read. */
  blockLength: number;
  /** `sha1:BASE32` recomputed from the block bytes. */
  sha1: string;
  /** The block, when `keepBlocks` (default true); null otherwise. */
  block: Buffer | null;
  /** warcio's idea of where the record (gzip member) starts. */
  offset: number;
}

/** RFC 4648 base32 via a bit string: slow, obvious, and not the writer's code. */
export function base32Obvious(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}

export function sha1Obvious(data: Uint8Array): string {
  return `sha1:${base32Obvious(createHash('sha1').update(data).digest())}`;
}

/** Every record of a WARC file (or a byte range of it), read with warcio without HTTP parsing. */
export async function readWarc(
  file: string,
  opts: { keepBlocks?: boolean; start?: number; end?: number } = {},
): Promise<ReadBackRecord[]> {
  const keep = opts.keepBlocks ?? true;
  const stream = fs.createReadStream(file, { start: opts.start, end: opts.end, highWaterMark: 1024 * 1024 });
  const parser = new WARCParser(stream, { parseHttp: false, keepHeadersCase: true });
  const out: ReadBackRecord[] = [];
  for await (const record of parser) {
    const hash = createHash('sha1');
    const chunks: Buffer[] = [];
    let blockLength = 0;
    for await (const chunk of record.reader) {
      hash.update(chunk);
      blockLength += chunk.length;
      if (keep) chunks.push(Buffer.from(chunk));
    }
    const headers: [string, string][] = [...(record.warcHeaders.headers as unknown as Map<string, string>).entries()];
    out.push({
      type: record.warcType,
      id: record.warcHeader('WARC-Record-ID') ?? '',
      headers,
      header: (name) => headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1],
      concurrentTo: record.warcConcurrentTo ?? [],
      contentLength: record.warcContentLength,
      blockLength,
      sha1: `sha1:${base32Obvious(hash.digest())}`,
      block: keep ? Buffer.concat(chunks) : null,
      offset: parser.offset,
    });
  }
  return out;
}
