/**
 * A failed write never corrupts a WARC. Failures are injected at the fs boundary only (the
 * writer's `openFile` seam returns a real FileHandle whose writes run out of "disk"); the
 * writer's own code path runs unchanged.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTroveError, type ErrorCode } from '../../core/errors.ts';
import { newRecordId } from '../../core/warc/record-header.ts';
import { recoverOpenWarc } from '../../core/warc/recover-open-warc.ts';
import { WarcWriter } from '../../core/warc/warc-writer.ts';
import type { RecordInput, WarcFileHandle } from '../../core/warc/warc-writer.ts';
import { parseWarcFileName } from '../../core/warc/warc-file-name.ts';
import { readWarc, sha1Obvious } from './writer-read-back.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-fail-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A disk that accepts `budget` more bytes (null: unlimited), then fails writes with ENOSPC. */
class FakeDisk {
  budget: number | null = null;
  failTruncate = false;
  failSync = false;

  open = async (p: string): Promise<WarcFileHandle> => {
    const real = await fsp.open(p, 'wx');
    return {
      write: async (buf, offset, length, position) => {
        if (this.budget !== null) {
          if (this.budget <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28 });
          length = Math.min(length, this.budget);
          this.budget -= length;
        }
        return real.write(buf, offset, length, position);
      },
      truncate: async (len) => {
        if (this.failTruncate) throw Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' });
        return real.truncate(len);
      },
      sync: async () => {
        if (this.failSync) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        return real.sync();
      },
      close: () => real.close(),
    };
  };
}

function group(n: number, bodyBytes = 2000): RecordInput[] {
  const id = newRecordId();
  const url = `https://example.org/${n}`;
  const body = Buffer.from(Array.from({ length: bodyBytes }, (_, i) => String.fromCharCode(33 + ((i * 7 + n) % 90))).join(''));
  return [
    { type: 'response', targetUri: url, date: new Date(), recordId: id, contentType: 'application/http; msgtype=response', blockParts: [Buffer.from('HTTP/1.1 200 OK\r\n\r\n'), body] },
    { type: 'request', targetUri: url, date: new Date(), contentType: 'application/http; msgtype=request', fields: [['WARC-Concurrent-To', id]], blockParts: [Buffer.from(`GET /${n} HTTP/1.1\r\n\r\n`)] },
    { type: 'metadata', targetUri: url, date: new Date(), contentType: 'application/warc-fields', fields: [['WARC-Concurrent-To', id]], blockParts: [Buffer.from('via: https://example.org/\r\n')] },
  ];
}

function writer(disk: FakeDisk, extra: Partial<ConstructorParameters<typeof WarcWriter>[0]> = {}): WarcWriter {
  return new WarcWriter({ dir, prefix: 'FAIL', maxBytes: 1 << 30, hostLabel: 'h', warcinfo: () => ({ fields: { software: 'Trove' } }), openFile: disk.open, ...extra });
}

async function rejectsWith(p: Promise<unknown>, code: ErrorCode): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (err) {
    expect(isTroveError(err, code), `expected ${code}, got ${String(err)}`).toBe(true);
    return (err as { details: Record<string, unknown> }).details;
  }
  throw new Error(`expected ${code}, resolved`);
}

describe('WarcWriter write failures', () => {
  it('ENOSPC mid-group: file cut back to the last complete group, then a retry succeeds', async () => {
    const disk = new FakeDisk();
    const w = writer(disk);
    await w.writeGroup(group(1));
    await w.writeGroup(group(2));
    const goodSize = w.bytesWritten;
    const open = w.currentFile!;

    const third = group(3);
    disk.budget = 700; // the response member fits, the request member does not
    const details = await rejectsWith(w.writeGroup(third), 'WARC_WRITE_FAILED');
    expect(details.causeCode).toBe('ENOSPC');
    expect(details.truncated).toBe(true);
    expect(fs.statSync(open).size).toBe(goodSize);
    expect(w.bytesWritten).toBe(goodSize);
    // The torn group is gone: what is on disk reads cleanly.
    expect((await readWarc(open)).map((r) => r.type)).toEqual(['warcinfo', ...Array(2).fill(['response', 'request', 'metadata']).flat()]);

    disk.budget = null; // space freed: the same records again
    const retried = await w.writeGroup(third);
    expect(retried[0]!.offset).toBe(goodSize);
    await w.close();
    const recs = await readWarc(w.filesClosed[0]!);
    expect(recs).toHaveLength(10);
    expect(recs.filter((r) => r.type === 'response').map((r) => r.header('WARC-Target-URI'))).toEqual([
      'https://example.org/1',
      'https://example.org/2',
      'https://example.org/3',
    ]);
    for (const r of recs) expect(r.header('WARC-Block-Digest')).toBe(r.sha1);
  });

  it('ENOSPC inside a large streamed block (gzip pipeline path)', async () => {
    const disk = new FakeDisk();
    const w = writer(disk);
    await w.writeGroup(group(1));
    const goodSize = w.bytesWritten;
    const body = randomBytes(1_500_000); // incompressible: the gzip output really is ~1.5 MB
    let opened = 0;
    let destroyed = 0;
    const spool = {
      length: body.length,
      stream: () => {
        opened += 1;
        const s = Readable.from([body.subarray(0, 500_000), body.subarray(500_000, 1_000_000), body.subarray(1_000_000)], { objectMode: false });
        s.on('close', () => (destroyed += 1));
        return s;
      },
    };
    const big = (): RecordInput[] => [
      { type: 'resource', targetUri: 'https://example.org/big.bin', date: new Date(), contentType: 'application/octet-stream', blockParts: [spool], blockDigest: sha1Obvious(body) },
    ];
    disk.budget = 200_000;
    await rejectsWith(w.writeGroup(big()), 'WARC_WRITE_FAILED');
    expect(fs.statSync(w.currentFile!).size).toBe(goodSize);
    await new Promise((r) => setImmediate(r));
    expect(destroyed).toBe(opened); // the spool stream was not left open
    disk.budget = null;
    const [rec] = await w.writeGroup(big());
    await w.close();
    const recs = await readWarc(w.filesClosed[0]!);
    expect(recs.map((r) => r.type)).toEqual(['warcinfo', 'response', 'request', 'metadata', 'resource']);
    expect(recs[4]!.offset).toBe(rec!.offset);
    expect(recs[4]!.blockLength).toBe(body.length);
    expect(recs[4]!.sha1).toBe(sha1Obvious(body));
  });

  it('a failure while writing a new file’s warcinfo leaves nothing behind and does not use up the serial', async () => {
    const disk = new FakeDisk();
    const w = writer(disk, { startSerial: 3 });
    disk.budget = 10;
    const details = await rejectsWith(w.writeGroup(group(1)), 'WARC_WRITE_FAILED');
    expect(details.op).toBe('warcinfo');
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(w.currentFile).toBeNull();
    disk.budget = null;
    await w.writeGroup(group(1));
    await w.close();
    expect(parseWarcFileName(path.basename(w.filesClosed[0]!))!.serial).toBe(3);
    expect(await readWarc(w.filesClosed[0]!)).toHaveLength(4);
  });

  it('when even truncate fails, the file is left .open (recoverable) and the writer moves on to a new file', async () => {
    const disk = new FakeDisk();
    const w = writer(disk);
    await w.writeGroup(group(1));
    const abandoned = w.currentFile!;
    disk.budget = 100; // inside group 2's response member
    disk.failTruncate = true;
    const details = await rejectsWith(w.writeGroup(group(2)), 'WARC_WRITE_FAILED');
    expect(details.truncated).toBe(false);
    expect(details.file).toBe(abandoned);
    expect(w.currentFile).toBeNull();
    disk.budget = null;
    disk.failTruncate = false;
    await w.writeGroup(group(2));
    await w.close();
    expect(w.filesClosed).toHaveLength(1);
    expect(parseWarcFileName(path.basename(w.filesClosed[0]!))!.serial).toBe(1);
    // The abandoned file has a torn tail; recovery keeps its warcinfo and first group.
    const recovered = await recoverOpenWarc(abandoned);
    expect(recovered.records).toBe(4);
    expect(recovered.cutBytes).toBe(100);
    expect((await readWarc(recovered.finalPath)).map((r) => r.type)).toEqual(['warcinfo', 'response', 'request', 'metadata']);
  });

  it('a spool that is shorter, longer or different from what was declared is refused and rolled back', async () => {
    const w = writer(new FakeDisk());
    await w.writeGroup(group(1));
    const goodSize = w.bytesWritten;
    const body = Buffer.alloc(400_000, 'q');
    const spoolOf = (bytes: Buffer, declared: number) => ({ length: declared, stream: () => Readable.from([bytes], { objectMode: false }) });
    const rec = (part: { length: number; stream(): Readable }, digest: string): RecordInput[] => [
      ...group(9).slice(0, 1),
      { type: 'resource', targetUri: 'https://example.org/spool', date: new Date(), blockParts: [part], blockDigest: digest },
    ];
    await rejectsWith(w.writeGroup(rec(spoolOf(body.subarray(1), body.length), sha1Obvious(body))), 'WARC_BLOCK_LENGTH_MISMATCH');
    await rejectsWith(w.writeGroup(rec(spoolOf(body, body.length - 1), sha1Obvious(body))), 'WARC_BLOCK_LENGTH_MISMATCH');
    const changed = Buffer.from(body);
    changed[1234] = 0x21;
    await rejectsWith(w.writeGroup(rec(spoolOf(changed, body.length), sha1Obvious(body))), 'WARC_BLOCK_DIGEST_MISMATCH');
    // "Trusted" (the fetcher hashed the bytes) skips the check for in-memory blocks only: a spool is still checked.
    await rejectsWith(w.writeGroup([{ ...rec(spoolOf(changed, body.length), sha1Obvious(body))[1]!, blockDigestTrusted: true }]), 'WARC_BLOCK_DIGEST_MISMATCH');
    // Small in-memory blocks with a wrong declared digest too.
    await rejectsWith(
      w.writeGroup([{ type: 'resource', targetUri: 'https://example.org/x', date: new Date(), blockParts: [Buffer.from('x')], blockDigest: sha1Obvious(Buffer.from('y')) }]),
      'WARC_BLOCK_DIGEST_MISMATCH',
    );
    const spoolError = { length: 10, stream: () => new Readable({ read() { this.destroy(Object.assign(new Error('EIO: spool read'), { code: 'EIO' })); } }) };
    await rejectsWith(w.writeGroup(rec(spoolError, sha1Obvious(Buffer.alloc(10)))), 'WARC_WRITE_FAILED');

    expect(w.bytesWritten).toBe(goodSize);
    expect(fs.statSync(w.currentFile!).size).toBe(goodSize);
    await w.writeGroup(group(2));
    await w.close();
    const recs = await readWarc(w.filesClosed[0]!);
    expect(recs.map((r) => r.type)).toEqual(['warcinfo', 'response', 'request', 'metadata', 'response', 'request', 'metadata']);
  });

  it('a failed fsync surfaces as WARC_WRITE_FAILED', async () => {
    const disk = new FakeDisk();
    const w = writer(disk);
    await w.writeGroup(group(1));
    disk.failSync = true;
    const details = await rejectsWith(w.flush(), 'WARC_WRITE_FAILED');
    expect(details.op).toBe('fsync');
    disk.failSync = false;
    await w.close();
    expect(w.filesClosed).toHaveLength(1);
  });
});
