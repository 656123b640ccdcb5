/**
 * Read WARC files back with warcio (an independent reader): every record with its WARC
 * headers, HTTP status and headers, and the raw payload bytes (after the HTTP head, not
 * de-chunked, not decoded).
 */
import fs from 'node:fs';
import path from 'node:path';
import { WARCParser } from 'warcio';

export interface ReadRecord {
  file: string;
  offset: number;
  type: string;
  recordId: string;
  targetUri: string | null;
  date: string;
  warcHeaders: Record<string, string>;
  concurrentTo: string[];
  status: number | null;
  httpHeaders: [string, string][];
  payload: Buffer;
}

export async function readWarcFile(file: string): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  const parser = new WARCParser(fs.createReadStream(file), { keepHeadersCase: true });
  for await (const record of parser) {
    const payload = Buffer.from(await record.readFully(false));
    const wh: Record<string, string> = {};
    for (const [k, v] of record.warcHeaders.headers as unknown as Iterable<[string, string]>) wh[k] = v;
    const http = record.httpHeaders;
    const httpHeaders: [string, string][] = http ? [...(http.headers as unknown as Iterable<[string, string]>)] : [];
    out.push({
      file: path.basename(file),
      offset: parser.offset,
      type: record.warcType,
      recordId: record.warcHeader('WARC-Record-ID') ?? '',
      targetUri: record.warcTargetURI ?? null,
      date: record.warcDate ?? '',
      warcHeaders: wh,
      concurrentTo: record.warcConcurrentTo ?? [],
      status: http?.statusCode ? Number(http.statusCode) : null,
      httpHeaders,
      payload,
    });
  }
  return out;
}

export async function readWarcDir(dir: string): Promise<ReadRecord[]> {
  const files = fs.readdirSync(dir).filter((n) => /\.warc(\.gz)?$/.test(n)).sort();
  const all: ReadRecord[] = [];
  for (const f of files) all.push(...(await readWarcFile(path.join(dir, f))));
  return all;
}
