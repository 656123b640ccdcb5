/**
 * Crash recovery: real files from the real writer, cut at many points (inside a gzip header,
 * inside a deflate stream, inside the trailer, exactly between members), and a real kill -9.
 * Every recovered file must read back with warcio without error and hold exactly the records
 * that were complete before the cut.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTroveError } from '../../core/errors.ts';
import { newRecordId } from '../../core/warc/record-header.ts';
import { listOpenWarcs, recoverOpenWarc } from '../../core/warc/recover-open-warc.ts';
import { WarcWriter } from '../../core/warc/warc-writer.ts';
import type { RecordInput } from '../../core/warc/warc-writer.ts';
import { repoRoot } from '../helpers/corpus.ts';
import { readWarc, sha1Obvious } from './writer-read-back.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-recover-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function group(n: number, body: Buffer): RecordInput[] {
  const id = newRecordId();
  const url = `https://example.org/${n}`;
  const head = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`);
  const streamed = body.length > 100_000;
  return [
    {
      type: 'response',
      targetUri: url,
      date: new Date(),
      recordId: id,
      contentType: 'application/http; msgtype=response',
      blockParts: streamed ? [head, { length: body.length, stream: () => Readable.from([body], { objectMode: false }) }] : [head, body],
      blockDigest: streamed ? sha1Obvious(Buffer.concat([head, body])) : undefined,
    },
    { type: 'request', targetUri: url, date: new Date(), contentType: 'application/http; msgtype=request', fields: [['WARC-Concurrent-To', id]], blockParts: [Buffer.from(`GET /${n} HTTP/1.1\r\n\r\n`)] },
  ];
}

/** Writes a small crawl; returns the file and the end offset of every record (warcinfo first). */
async function writeSample(sub: string, gzip: boolean): Promise<{ file: string; ends: number[] }> {
  const w = new WarcWriter({ dir: path.join(dir, sub), prefix: 'REC', maxBytes: 1 << 30, gzip, hostLabel: 'h', warcinfo: () => ({ fields: { software: 'Trove' } }) });
  const bodies = [Buffer.from('<html>small</html>'), randomBytes(1_300_000), Buffer.alloc(0), Buffer.from('x'.repeat(5000)), randomBytes(3000)];
  const written = [];
  for (const [n, body] of bodies.entries()) written.push(...(await w.writeGroup(group(n, body))));
  await w.close();
  const ends = [written[0]!.offset, ...written.map((r) => r.offset + r.length)];
  return { file: w.filesClosed[0]!, ends };
}

/** Cut points that hit every kind of boundary, plus a spread of random ones. */
function cutPoints(ends: number[], size: number): number[] {
  const cuts = new Set<number>([0, 1, size - 1]);
  let start = 0;
  for (const end of ends) {
    for (const c of [start + 1, start + 5, start + 10, start + 11, Math.floor((start + end) / 2), end - 9, end - 8, end - 4, end - 1, end]) {
      if (c >= 0 && c <= size) cuts.add(c);
    }
    start = end;
  }
  for (let i = 0; i < 12; i++) cuts.add(Math.floor(Math.random() * size));
  return [...cuts].sort((a, b) => a - b);
}

async function checkCuts(sub: string, gzip: boolean): Promise<number> {
  const { file, ends } = await writeSample(sub, gzip);
  const bytes = fs.readFileSync(file);
  expect(ends.at(-1)).toBe(bytes.length);
  const cutDir = path.join(dir, `${sub}-cuts`);
  fs.mkdirSync(cutDir);
  const cuts = cutPoints(ends, bytes.length);
  for (const cut of cuts) {
    const open = path.join(cutDir, `${path.basename(file)}.open`);
    fs.writeFileSync(open, bytes.subarray(0, cut));
    const expectedRecords = ends.filter((e) => e <= cut).length;
    const expectedKept = expectedRecords ? ends[expectedRecords - 1]! : 0;
    const res = await recoverOpenWarc(open);
    const label = `cut at ${cut} of ${bytes.length}`;
    expect(res.records, label).toBe(expectedRecords);
    expect(res.keptBytes, label).toBe(expectedKept);
    expect(res.cutBytes, label).toBe(cut - expectedKept);
    expect(res.note === null, label).toBe(cut === expectedKept);
    expect(fs.existsSync(open), label).toBe(false);
    if (expectedRecords === 0) {
      expect(res.removed, label).toBe(true);
      expect(fs.existsSync(res.finalPath), label).toBe(false);
    } else {
      expect(fs.statSync(res.finalPath).size, label).toBe(expectedKept);
      const recs = await readWarc(res.finalPath, { keepBlocks: false });
      expect(recs.length, label).toBe(expectedRecords);
      for (const r of recs) expect(r.header('WARC-Block-Digest'), label).toBe(r.sha1);
      fs.rmSync(res.finalPath);
    }
  }
  return cuts.length;
}

describe('recoverOpenWarc', () => {
  it('recovers a .warc.gz.open cut anywhere to exactly its complete records', async () => {
    expect(await checkCuts('gz', true)).toBeGreaterThan(60);
  });

  it('recovers an uncompressed .warc.open cut anywhere', async () => {
    expect(await checkCuts('plain', false)).toBeGreaterThan(60);
  });

  it('leaves a whole file as it is (note null) and cuts garbage or a corrupt member', async () => {
    const { file, ends } = await writeSample('whole', true);
    const bytes = fs.readFileSync(file);
    const open = `${file}.open`;
    fs.renameSync(file, open);
    expect(await listOpenWarcs(path.dirname(file))).toEqual([open]);
    const whole = await recoverOpenWarc(open);
    expect(whole).toMatchObject({ finalPath: file, records: ends.length, keptBytes: bytes.length, cutBytes: 0, note: null, removed: false });
    expect(await listOpenWarcs(path.dirname(file))).toEqual([]);

    // Zero-filled tail (what some filesystems leave after a power cut).
    fs.writeFileSync(open, Buffer.concat([bytes, Buffer.alloc(4096)]));
    fs.rmSync(file);
    const zeros = await recoverOpenWarc(open);
    expect(zeros.records).toBe(ends.length);
    expect(zeros.cutBytes).toBe(4096);
    expect(zeros.note).toMatch(/not a gzip member/);

    // A flipped byte inside the third record's member: CRC or inflate error there, earlier records kept.
    const bad = Buffer.from(bytes);
    bad[Math.floor((ends[1]! + ends[2]!) / 2)]! ^= 0xff;
    fs.rmSync(file);
    fs.writeFileSync(open, bad);
    const corrupt = await recoverOpenWarc(open);
    expect(corrupt.records).toBe(2);
    expect(corrupt.keptBytes).toBe(ends[1]);
    expect((await readWarc(file)).length).toBe(2);
  });

  it('a flipped byte anywhere in a member (header, deflate data, trailer) is cut, never hangs', async () => {
    const sub = path.join(dir, 'flips');
    const w = new WarcWriter({ dir: sub, prefix: 'FLIP', maxBytes: 1 << 30, hostLabel: 'h', warcinfo: () => ({ fields: {} }) });
    const [rec] = await w.writeGroup([{ type: 'resource', targetUri: 'https://example.org/', date: new Date(), blockParts: [Buffer.from('WARC/1.1 lookalike '.repeat(40))] }]);
    await w.close();
    const file = w.filesClosed[0]!;
    const bytes = fs.readFileSync(file);
    expect(rec!.offset + rec!.length).toBe(bytes.length);
    for (let pos = rec!.offset; pos < bytes.length; pos++) {
      const bad = Buffer.from(bytes);
      bad[pos]! ^= 0xff;
      fs.rmSync(file, { force: true });
      fs.writeFileSync(`${file}.open`, bad);
      const res = await recoverOpenWarc(`${file}.open`);
      // MTIME, XFL and OS (header bytes 4–9) are informational: no checksum covers them.
      const harmless = pos >= rec!.offset + 4 && pos < rec!.offset + 10;
      expect(res.keptBytes, `flip at ${pos}`).toBe(harmless ? bytes.length : rec!.offset);
      expect(res.records, `flip at ${pos}`).toBe(harmless ? 2 : 1);
    }
  });

  it('refuses what it must not touch, with typed errors', async () => {
    const sub = path.join(dir, 'errors');
    fs.mkdirSync(sub);
    await expect(recoverOpenWarc(path.join(sub, 'a.warc.gz'))).rejects.toSatisfy((e: unknown) => isTroveError(e, 'WARC_NOT_OPEN_FILE'));
    await expect(recoverOpenWarc(path.join(sub, 'missing.warc.gz.open'))).rejects.toSatisfy((e: unknown) => isTroveError(e, 'WARC_RECOVER_FAILED'));
    fs.writeFileSync(path.join(sub, 'b.warc.gz'), 'final');
    fs.writeFileSync(path.join(sub, 'b.warc.gz.open'), 'open');
    await expect(recoverOpenWarc(path.join(sub, 'b.warc.gz.open'))).rejects.toSatisfy((e: unknown) => isTroveError(e, 'WARC_RECOVER_TARGET_EXISTS'));
    expect(fs.readFileSync(path.join(sub, 'b.warc.gz'), 'utf8')).toBe('final');
    expect(fs.readFileSync(path.join(sub, 'b.warc.gz.open'), 'utf8')).toBe('open');
    expect(await listOpenWarcs(path.join(sub, 'nope'))).toEqual([]);
    // Not a WARC at all: nothing to keep, so it is removed rather than renamed.
    fs.writeFileSync(path.join(sub, 'c.warc.open'), 'hello, not a warc');
    expect(await recoverOpenWarc(path.join(sub, 'c.warc.open'))).toMatchObject({ records: 0, removed: true, cutBytes: 17 });
  });

  it('recovers the file a writer left behind when killed with SIGKILL', async () => {
    const sub = path.join(dir, 'killed');
    fs.mkdirSync(sub);
    const script = path.join(sub, 'child.ts');
    const writerUrl = pathToFileURL(path.join(repoRoot, 'core', 'warc', 'warc-writer.ts')).href;
    fs.writeFileSync(
      script,
      `import { WarcWriter } from ${JSON.stringify(writerUrl)};
import { randomBytes } from 'node:crypto';
const w = new WarcWriter({ dir: ${JSON.stringify(sub)}, prefix: 'KILL', maxBytes: 1 << 30, hostLabel: 'h', warcinfo: () => ({ fields: { software: 'Trove' } }) });
for (let n = 0; ; n++) {
  const body = randomBytes(n % 3 === 0 ? 200000 : 2000);
  await w.writeGroup([
    { type: 'response', targetUri: 'https://example.org/' + n, date: new Date(), blockParts: [Buffer.from('HTTP/1.1 200 OK\\r\\n\\r\\n'), body] },
    { type: 'metadata', targetUri: 'https://example.org/' + n, date: new Date(), contentType: 'application/warc-fields', blockParts: [Buffer.from('n: ' + n + '\\r\\n')] },
  ]);
  process.stdout.write('G' + n + '\\n');
}
`,
    );
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const groupsSeen = await new Promise<number>((resolve, reject) => {
      let seen = 0;
      child.stdout.on('data', (d: Buffer) => {
        seen += d.toString().split('\n').filter((l) => l.startsWith('G')).length;
        if (seen >= 25) {
          child.kill('SIGKILL');
          resolve(seen);
        }
      });
      child.on('exit', () => reject(new Error(`child exited early: ${stderr}`)));
    });
    await new Promise((r) => child.once('close', r));

    const open = await listOpenWarcs(sub);
    expect(open).toHaveLength(1);
    const res = await recoverOpenWarc(open[0]!);
    expect(res.records).toBeGreaterThanOrEqual(1 + 2 * groupsSeen);
    const recs = await readWarc(res.finalPath, { keepBlocks: false });
    expect(recs.length).toBe(res.records);
    expect(recs[0]!.type).toBe('warcinfo');
    for (const r of recs) {
      expect(r.contentLength).toBe(r.blockLength);
      expect(r.header('WARC-Block-Digest')).toBe(r.sha1);
    }
  });
});
