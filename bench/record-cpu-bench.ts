/**
 * The crawl thread's per-record work in isolation (issue 20): what one gzip member, one digest
 * and one digest object cost, the way the WARC writer and the fetcher made them before and the
 * way they make them now, on records of the sizes a crawl writes (request and metadata records of
 * a few hundred bytes, small pages up to the inline-gzip limit, larger pages, 1 MiB).
 *
 * Each pair is timed in the same run, interleaved in rounds (medians of CPU time, not wall time),
 * and printed as a ratio; the figures in µs are this machine's at its load (printed). The corpus is real HTML (the Python docs, when
 * python3-doc is installed) behind a WARC header, so the compressed sizes of both settings are
 * compared on text like a crawl's: the zlib window and memory level sized to the record must not
 * make members larger.
 *
 *   node bench/record-cpu-bench.ts [--rounds=N]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';
import { Transform } from 'node:stream';
import { RunningDigest, base32, sha1Base32 } from '../core/formats/digest.ts';
import { gzipChunkSize, gzipMemberOptions } from '../core/warc/write-record.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Math.max(1, Number(arg('rounds') ?? 9));
const DOCS = '/usr/share/doc/python3-doc/html';

/**
 * Mean µs of CPU per call of `fn` over `n` calls: the process's CPU time (user + system), not the
 * wall clock, so a shared machine's other work does not count against either side.
 */
function time(n: number, fn: (i: number) => void): number {
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) fn(i);
  const d = process.cpuUsage(t);
  return (d.user + d.system) / n;
}

/** Both functions timed in alternating rounds; the median of each, and before/after. */
function pair(label: string, n: number, before: (i: number) => void, after: (i: number) => void): void {
  time(Math.max(1, n >> 3), before);
  time(Math.max(1, n >> 3), after);
  const b: number[] = [];
  const a: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      b.push(time(n, before));
      a.push(time(n, after));
    } else {
      a.push(time(n, after));
      b.push(time(n, before));
    }
  }
  const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y);
  const [mb, ma] = [sorted(b), sorted(a)];
  const mid = (xs: number[]) => xs[Math.floor((xs.length - 1) / 2)]!;
  console.log(
    `${label.padEnd(72)} before ${mid(mb).toFixed(2).padStart(7)} µs  after ${mid(ma).toFixed(2).padStart(7)} µs  after/before ${(mid(ma) / mid(mb)).toFixed(2)}` +
      ` (least disturbed rounds: ${mb[0]!.toFixed(2)} / ${ma[0]!.toFixed(2)} = ${(ma[0]! / mb[0]!).toFixed(2)})`,
  );
}

function htmlCorpus(): Buffer[] {
  if (!fs.existsSync(DOCS)) return [];
  const out: Buffer[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.html')) out.push(fs.readFileSync(p));
    }
  };
  walk(DOCS);
  return out;
}

const header = (n: number) =>
  Buffer.from(
    `WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:${crypto.randomUUID()}>\r\nWARC-Date: 2026-11-26T06:00:00Z\r\n` +
      `WARC-Target-URI: http://127.0.0.1:8080/p/1234.html\r\nWARC-IP-Address: 127.0.0.1\r\nContent-Type: application/http; msgtype=response\r\n` +
      `WARC-Payload-Digest: sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\r\nWARC-Block-Digest: sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\r\nContent-Length: ${n}\r\n\r\n`,
  );
const record = (block: Buffer) => Buffer.concat([header(block.length), block, Buffer.from('\r\n\r\n')]);

console.log(`load ${os.loadavg()[0]!.toFixed(2)}, ${rounds} rounds, ${process.version}`);

// 1. gzip members: zlib's defaults (windowBits 15, memLevel 8) against the options sized to the record.
const requestRec = record(Buffer.from('GET /p/1234.html HTTP/1.1\r\nhost: 127.0.0.1:8080\r\nuser-agent: Trove/0.1 (+https://example.org/trove)\r\naccept: */*\r\naccept-encoding: gzip, br\r\n\r\n'));
const corpus = htmlCorpus();
/** Up to 100 records whose block is `n` bytes of the docs' HTML (from different pages and places). */
const slices = (n: number) =>
  corpus.length === 0
    ? [Buffer.from('<p>' + 'lorem ipsum dolor sit amet, '.repeat(Math.ceil(n / 28)).slice(0, Math.max(0, n - 7)) + '</p>')]
    : corpus.slice(0, 100).map((b, i) => {
        const at = (i * 37) % Math.max(1, b.length - n);
        return b.subarray(at, at + n);
      });
const sets: [string, Buffer[]][] = [
  ['request record', [requestRec]],
  ...[300, 700, 1500, 4000, 7000, 16_000, 64_000].map((n): [string, Buffer[]] => [`${n} B of HTML`, slices(n).map((b) => record(Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n'), b])))]),
];
for (const [label, recs] of sets) {
  const raw = recs.reduce((s, r) => s + r.length, 0);
  let before = 0;
  let after = 0;
  for (const r of recs) {
    const b = gzipSync(r, { level: 6, chunkSize: gzipChunkSize(r.length) });
    const a = gzipSync(r, { level: 6, chunkSize: gzipChunkSize(r.length), ...gzipMemberOptions(r.length) });
    if (!gunzipSync(a).equals(r)) throw new Error('round trip failed');
    before += b.length;
    after += a.length;
  }
  const n = Math.max(20, Math.round(400_000 / (raw / recs.length)));
  const w = gzipMemberOptions(Math.round(raw / recs.length));
  pair(
    `gzip ${label} (${recs.length} × ~${Math.round(raw / recs.length)} B, window ${w.windowBits}, memLevel ${w.memLevel})`,
    n,
    (i) => gzipSync(recs[i % recs.length]!, { level: 6, chunkSize: gzipChunkSize(recs[i % recs.length]!.length) }),
    (i) => gzipSync(recs[i % recs.length]!, { level: 6, chunkSize: gzipChunkSize(recs[i % recs.length]!.length), ...gzipMemberOptions(recs[i % recs.length]!.length) }),
  );
  console.log(`${''.padEnd(72)} compressed bytes: before ${before}, after ${after}, after/before ${(after / before).toFixed(4)}`);
}

// 2. digests of bytes in memory: a Hash object per digest against the one-shot crypto.hash.
for (const size of [300, 2000, 16_000, 1024 * 1024]) {
  const data = crypto.randomBytes(size);
  pair(
    `sha1 base32 of ${size} B in memory`,
    Math.max(20, Math.round(2_000_000 / size)),
    () => 'sha1:' + base32(crypto.createHash('sha1').update(data).digest()),
    () => sha1Base32(data),
  );
}

// 3. the fetcher's two running digests per fetch: a Transform stream each against a plain object.
class TransformDigest extends Transform {
  #hash = crypto.createHash('sha1');
  update(c: Uint8Array): this {
    this.#hash.update(c);
    return this;
  }
  digest(): string {
    return 'sha1:' + base32(this.#hash.digest());
  }
}
/** The fetcher's two digests of a response: the block (head + body) and the payload (body). */
function blockAndPayload(D: new () => { update(b: Buffer): unknown; digest(): string }, head: Buffer, body: Buffer): void {
  const b = new D();
  const p = new D();
  b.update(head);
  b.update(body);
  p.update(body);
  b.digest();
  p.digest();
}
const head = Buffer.from('HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: 1500\r\n\r\n');
const body = crypto.randomBytes(1500);
pair(
  'block + payload digest of one small response',
  20_000,
  () => {
    blockAndPayload(TransformDigest, head, body);
  },
  () => {
    blockAndPayload(RunningDigest, head, body);
  },
);

// 4. One URI of the synthetic crawl as the crawl thread did it and does it: three gzip members
// (response ~900 B, request ~700 B, metadata ~570 B uncompressed, as crawl100k-bench reads them
// back), the fetcher's block and payload digests, the request and metadata block digests.
{
  const html = slices(700)[0]!;
  const resp = record(Buffer.concat([head, html]));
  const req = requestRec;
  const meta = record(Buffer.from('via: http://127.0.0.1:8080/p/123.html\r\nhopsFromSeed: LLLL\r\nfetchTimeMs: 3\r\noutlink: http://127.0.0.1:8080/i/1234.png E img/@src\r\n'));
  const reqBlock = req.subarray(req.indexOf('\r\n\r\n') + 4);
  const metaBlock = meta.subarray(meta.indexOf('\r\n\r\n') + 4);
  pair(
    'one URI: 3 gzip members + 4 digests',
    5_000,
    () => {
      blockAndPayload(TransformDigest, head, html);
      'sha1:' + base32(crypto.createHash('sha1').update(reqBlock).digest());
      'sha1:' + base32(crypto.createHash('sha1').update(metaBlock).digest());
      for (const r of [resp, req, meta]) gzipSync(r, { level: 6, chunkSize: gzipChunkSize(r.length) });
    },
    () => {
      blockAndPayload(RunningDigest, head, html);
      sha1Base32(reqBlock);
      sha1Base32(metaBlock);
      for (const r of [resp, req, meta]) gzipSync(r, { level: 6, chunkSize: gzipChunkSize(r.length), ...gzipMemberOptions(r.length) });
    },
  );
}
