/**
 * The crawl thread's per-record work in isolation (issue 20): what one gzip member, one digest
 * and one digest object cost, the way the WARC writer and the fetcher made them before and the
 * way they make them now, on records of the sizes a crawl writes (request and metadata records of
 * a few hundred bytes, small pages up to the inline-gzip limit, larger pages, 1 MiB).
 *
 * Each pair is timed in the same run, interleaved in rounds, and printed as a ratio; the figures
 * in µs are this machine's at its load (printed). The corpus is real HTML (the Python docs, when
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
import { gzipMemberOptions } from '../core/warc/write-record.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Math.max(1, Number(arg('rounds') ?? 5));
const DOCS = '/usr/share/doc/python3-doc/html';

/** Mean µs per call of `fn` over `n` calls. */
function time(n: number, fn: (i: number) => void): number {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return Number(process.hrtime.bigint() - t) / 1000 / n;
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
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)]!;
  const mb = med(b);
  const ma = med(a);
  console.log(`${label.padEnd(58)} before ${mb.toFixed(2).padStart(8)} µs  after ${ma.toFixed(2).padStart(8)} µs  after/before ${(ma / mb).toFixed(2)}`);
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
const bySize = (lo: number, hi: number) => corpus.filter((b) => b.length >= lo && b.length < hi).slice(0, 200);
const synthetic = (n: number) => Buffer.from('<p>' + 'lorem ipsum dolor sit amet, '.repeat(Math.ceil(n / 28)).slice(0, n - 7) + '</p>');
const sets: [string, Buffer[]][] = [
  ['request record', [requestRec]],
  ['HTML < 2 KiB', bySize(500, 2048)],
  ['HTML 2–8 KiB (inline gzip)', bySize(2048, 8 * 1024 - 700)],
  ['HTML 8–32 KiB', bySize(8 * 1024, 32 * 1024)],
  ['HTML 32–128 KiB', bySize(32 * 1024, 128 * 1024)],
];
for (const [label, bodies] of sets) {
  const recs = (bodies.length > 0 ? bodies : [synthetic(label.includes('128') ? 60_000 : label.includes('32') ? 16_000 : 1500)]).map((b) =>
    b === requestRec ? b : record(Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n'), b])),
  );
  const raw = recs.reduce((s, r) => s + r.length, 0);
  let before = 0;
  let after = 0;
  for (const r of recs) {
    const b = gzipSync(r, { level: 6 });
    const a = gzipSync(r, { level: 6, ...gzipMemberOptions(r.length) });
    if (!gunzipSync(a).equals(r)) throw new Error('round trip failed');
    before += b.length;
    after += a.length;
  }
  const n = Math.max(20, Math.round(200_000 / (raw / recs.length)));
  pair(
    `gzip ${label} (${recs.length} × ~${Math.round(raw / recs.length)} B)`,
    n,
    (i) => gzipSync(recs[i % recs.length]!, { level: 6 }),
    (i) => gzipSync(recs[i % recs.length]!, { level: 6, ...gzipMemberOptions(recs[i % recs.length]!.length) }),
  );
  console.log(`${''.padEnd(58)} compressed bytes: before ${before}, after ${after}, after/before ${(after / before).toFixed(4)}`);
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
const head = Buffer.from('HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: 1500\r\n\r\n');
const body = crypto.randomBytes(1500);
pair(
  'block + payload digest of one small response',
  20_000,
  () => {
    const b = new TransformDigest();
    const p = new TransformDigest();
    b.update(head).update(body);
    p.update(body);
    b.digest();
    p.digest();
  },
  () => {
    const b = new RunningDigest();
    const p = new RunningDigest();
    b.update(head).update(body);
    p.update(body);
    b.digest();
    p.digest();
  },
);
