/**
 * Writing small WARC files for replay and archive tests with warcio.js (an independent writer),
 * so the cases replay must handle (several captures in time, redirects, revisits, fuzzy URLs)
 * can be set up exactly, without a crawl.
 */
import fs from 'node:fs/promises';
import { WARCRecord, WARCSerializer } from 'warcio';

export interface FixtureRecord {
  type?: 'response' | 'revisit' | 'resource' | 'request' | 'metadata';
  url: string;
  /** ISO date, e.g. `2021-05-01T12:00:00Z`. */
  date: string;
  status?: number;
  statusText?: string;
  /** HTTP headers in order. */
  headers?: [string, string][];
  body?: string | Buffer;
  /** Extra WARC fields (WARC-Record-ID, WARC-Refers-To, WARC-Payload-Digest …). */
  warcHeaders?: Record<string, string>;
  refersToUrl?: string;
  refersToDate?: string;
}

async function* once(data: Uint8Array): AsyncGenerator<Uint8Array> {
  if (data.length > 0) yield data;
}

/** The serialized bytes of one record. */
export async function recordBytes(r: FixtureRecord, gzip = true): Promise<Uint8Array> {
  const type = r.type ?? 'response';
  const body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : (r.body ?? Buffer.alloc(0));
  const http = type === 'response' || type === 'revisit' || type === 'request';
  const record = WARCRecord.create(
    {
      url: r.url,
      date: r.date,
      type,
      warcVersion: 'WARC/1.1',
      keepHeadersCase: true,
      ...(r.warcHeaders ? { warcHeaders: r.warcHeaders } : {}),
      ...(http ? { httpHeaders: r.headers ?? [], statusline: type === 'request' ? `GET ${new URL(r.url).pathname} HTTP/1.1` : `HTTP/1.1 ${r.status ?? 200} ${r.statusText ?? 'OK'}` } : {}),
      ...(r.refersToUrl ? { refersToUrl: r.refersToUrl } : {}),
      ...(r.refersToDate ? { refersToDate: r.refersToDate } : {}),
    },
    once(body),
  );
  if (!http && r.headers) {
    // resource / metadata: Content-Type is a WARC field
    for (const [k, v] of r.headers) record.warcHeaders.headers.set(k, v);
  }
  return WARCSerializer.serialize(record, { gzip });
}

/** Write `records` as a WARC (one gzip member per record unless `gzip: false`). */
export async function writeWarc(file: string, records: FixtureRecord[], opts: { gzip?: boolean } = {}): Promise<void> {
  const parts: Uint8Array[] = [];
  for (const r of records) parts.push(await recordBytes(r, opts.gzip ?? true));
  await fs.writeFile(file, Buffer.concat(parts));
}

/** `text/html` page headers. */
export function html(extra: [string, string][] = []): [string, string][] {
  return [['Content-Type', 'text/html; charset=utf-8'], ...extra];
}
