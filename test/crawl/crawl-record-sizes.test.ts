/**
 * The crawl thread's per-record work (issue 20: zlib's window and memory level sized to each
 * record, one-shot digests, no stream object per digest) leaves every WARC record what the
 * standard requires. A crawl of pages of many sizes (empty, tiny, around the inline-gzip limit,
 * incompressible, 1 MiB in memory, 1.5 MiB spooled to a file) on a real HTTP server on loopback;
 * its WARC read back by warcio with every block digest and payload digest recomputed, and each
 * gzip member inflated on its own by Node's zlib and by Python's gzip module, which must agree on
 * the record and find exactly one member. Members are no larger than zlib's defaults make them.
 */
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../core/api/settings.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { readWarc, sha1Obvious, type ReadBackRecord } from '../warc/writer-read-back.ts';

/** Text that compresses like HTML (repeats), or random bytes that do not compress at all. */
function body(size: number, seed: number, random: boolean): Buffer {
  if (random) return randomBytes(size, seed);
  const words = ['archive', 'crawl', 'record', 'window', 'member', 'digest', 'frontier', 'replay'];
  let s = '<!doctype html><title>t</title>\n';
  for (let i = 0; s.length < size; i++) s += `<p>${words[(i * 7 + seed) % 8]} ${i} ${words[(i * 3 + seed) % 8]}</p>\n`;
  return Buffer.from(s.slice(0, size), 'latin1');
}

/** Deterministic incompressible bytes (sha256 in counter mode). */
function randomBytes(size: number, seed: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; out.length * 32 < size; i++) out.push(crypto.createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(out).subarray(0, size);
}

// Sizes around the 8 KiB inline-gzip limit (header and response head add ~600 bytes), and beyond.
const sizes: [string, number, boolean][] = [
  ['empty', 0, false],
  ['tiny', 10, false],
  ['small', 300, false],
  ['small-random', 300, true],
  ['page', 1500, false],
  ['random', 3000, true],
  ...[7000, 7300, 7500, 7600, 7700, 7800, 7900, 8100, 8400].map((n): [string, number, boolean] => [`near-${n}`, n, false]),
  ['over-random', 9000, true],
  ['mid', 40 * 1024, false],
  ['mem-1mib', 1024 * 1024, false],
  ['file-1.5mib', 1536 * 1024, true],
];
const pages = new Map<string, Buffer>();
sizes.forEach(([name, size, random], i) => pages.set(`/${name}.bin`, body(size, i, random)));
const index = Buffer.from([...pages.keys()].map((p) => `<a href="${p}">x</a>`).join('\n'));

describe('WARC records of every size after the per-record cuts', () => {
  let server: http.Server;
  let origin: string;
  let dir: string;
  let file: string;
  let records: ReadBackRecord[];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const b = req.url === '/' ? index : pages.get(req.url ?? '');
      if (!b) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': req.url === '/' ? 'text/html' : 'application/octet-stream', 'content-length': b.length });
      res.end(b);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-record-sizes-'));
    const crawl = await startCrawl({
      dir,
      settings: { name: 'sizes', seeds: [origin + '/'], minDelayMs: 0, maxDelayMs: 0, delayFactor: 0, maxRetries: 0, concurrency: 3, minFreeDiskBytes: 0, robots: 'ignore' },
    });
    await crawl.finished();
    const warcs = fs.readdirSync(path.join(dir, 'warcs')).filter((f) => f.endsWith('.warc.gz'));
    expect(warcs).toHaveLength(1);
    file = path.join(dir, 'warcs', warcs[0]!);
    records = await readWarc(file);
  }, 60_000);

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads back with warcio, every block digest and payload digest recomputed', () => {
    for (const p of pages.keys()) {
      const r = records.find((x) => x.type === 'response' && x.header('WARC-Target-URI') === origin + p);
      expect(r, p).toBeDefined();
      const block = r!.block!;
      const headEnd = block.indexOf('\r\n\r\n') + 4;
      expect(block.subarray(headEnd).equals(pages.get(p)!), p).toBe(true);
      expect(r!.header('WARC-Payload-Digest'), p).toBe(sha1Obvious(pages.get(p)!));
    }
    for (const r of records) {
      expect(r.blockLength, r.id).toBe(r.contentLength);
      expect(r.header('WARC-Block-Digest'), `${r.type} ${r.header('WARC-Target-URI')}`).toBe(r.sha1);
    }
    // Each response has its request and metadata records, pointing at it.
    for (const r of records.filter((x) => x.type === 'response')) {
      const with_ = (type: string) => records.filter((x) => x.type === type && x.concurrentTo.includes(r.id));
      expect(with_('request'), r.header('WARC-Target-URI')).toHaveLength(1);
      expect(with_('metadata'), r.header('WARC-Target-URI')).toHaveLength(1);
    }
  });

  it('each gzip member inflates alone to one record, the same by Node zlib and by Python gzip, no larger than zlib makes it at the level a crawl uses', () => {
    const bytes = fs.readFileSync(file);
    const offsets = records.map((r) => r.offset);
    const bounds = offsets.map((start, i): [number, number] => [start, i + 1 < offsets.length ? offsets[i + 1]! : bytes.length]);
    const rawLengths = bounds.map(([a, b], i) => {
      const raw = gunzipSync(bytes.subarray(a, b));
      const r = records[i]!;
      // One member, one whole record: header, block of Content-Length bytes, CRLFCRLF.
      expect(raw.subarray(0, 9).toString('latin1'), r.id).toBe('WARC/1.1\r');
      expect(raw.subarray(raw.length - 4).toString('latin1')).toBe('\r\n\r\n');
      const headerEnd = raw.indexOf('\r\n\r\n') + 4;
      expect(raw.length - headerEnd - 4, r.id).toBe(r.contentLength);
      expect(raw.subarray(headerEnd, raw.length - 4).equals(r.block!), r.id).toBe(true);
      // The member is no larger than zlib makes of the same record at the crawl's level (the
      // warcGzipLevel setting's default).
      expect(b - a, r.id).toBeLessThanOrEqual(gzipSync(raw, { level: defaultSettings().warcGzipLevel }).length);
      return raw.length;
    });
    // The sizes cover both sides of the 8 KiB inline-gzip limit, and the record held whole in memory.
    expect(rawLengths.some((n) => n > 7800 && n <= 8192)).toBe(true);
    expect(rawLengths.some((n) => n > 8192 && n < 9000)).toBe(true);
    expect(rawLengths.some((n) => n > 1024 * 1024 && n < 1024 * 1024 + 2048)).toBe(true);

    const py = [
      'import gzip, hashlib, json, sys, zlib',
      'data = open(sys.argv[1], "rb").read()',
      'out = []',
      'for a, b in json.loads(sys.stdin.read()):',
      '    member = data[a:b]',
      '    d = zlib.decompressobj(31)',
      '    d.decompress(member)',
      '    assert d.eof and d.unused_data == b"", (a, b)',
      '    out.append(hashlib.sha1(gzip.decompress(member)).hexdigest())',
      'print(json.dumps(out))',
    ].join('\n');
    const r = spawnSync('python3', ['-c', py, file], { input: JSON.stringify(bounds), encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const pyDigests = JSON.parse(r.stdout) as string[];
    expect(pyDigests).toEqual(bounds.map(([a, b]) => crypto.createHash('sha1').update(gunzipSync(bytes.subarray(a, b))).digest('hex')));
    expect(rawLengths).toHaveLength(records.length);
  });
});
