/**
 * The writer puts a group's consecutive in-memory members on disk with one writev (issue 20: one
 * trip to the thread pool per URI instead of one per record, and no joining copy), finishes a
 * short writev buffer by buffer, writes them one by one on a handle without writev, and every
 * record lands where WrittenRecord says, as warcio reads it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { newRecordId } from '../../core/warc/record-header.ts';
import { WarcWriter } from '../../core/warc/warc-writer.ts';
import type { RecordInput, WarcFileHandle, WrittenRecord } from '../../core/warc/warc-writer.ts';
import { readWarc } from './writer-read-back.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-joined-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function group(bodies: Buffer[]): RecordInput[] {
  const id = newRecordId();
  return bodies.map((body, i) => ({
    type: i === 0 ? 'response' : 'metadata',
    targetUri: 'https://example.org/',
    date: new Date('2026-11-26T06:00:00Z'),
    recordId: i === 0 ? id : undefined,
    contentType: i === 0 ? 'application/http; msgtype=response' : 'application/warc-fields',
    fields: i === 0 ? [] : [['WARC-Concurrent-To', id]],
    blockParts: i === 0 ? [Buffer.from('HTTP/1.1 200 OK\r\n\r\n'), body] : [body],
  }));
}

const small = (n: number) => Buffer.from(`via: https://example.org/${'x'.repeat(n)}\r\n`);
// Incompressible: its member is as large as the body.
const large = Buffer.concat(Array.from({ length: 200_000 / 32 }, (_, i) => createHash('sha256').update(String(i)).digest()));

/** Calls made on the file: ['write', bytes] or ['writev', buffers, bytes]. `shortBy`: a writev writes that many bytes less. */
function recordingOpen(calls: (string | number)[][], opts: { writev: boolean; shortBy?: number }) {
  return async (p: string): Promise<WarcFileHandle> => {
    const real = await fsp.open(p, 'wx');
    const h: WarcFileHandle = {
      write: (buf, offset, length, position) => {
        calls.push(['write', length]);
        return real.write(buf, offset, length, position);
      },
      truncate: (len) => real.truncate(len),
      sync: () => real.sync(),
      close: () => real.close(),
    };
    if (opts.writev) {
      h.writev = async (bufs, position) => {
        const total = bufs.reduce((s, b) => s + b.length, 0);
        calls.push(['writev', bufs.length, total]);
        const want = Math.max(0, total - (opts.shortBy ?? 0));
        // Write only the first `want` bytes, as a short writev would.
        let at = 0;
        for (const b of bufs) {
          const n = Math.min(b.length, want - at);
          if (n <= 0) break;
          await real.write(b, 0, n, position + at);
          at += n;
        }
        return { bytesWritten: at };
      };
    }
    return h;
  };
}

async function check(file: string, written: WrittenRecord[]): Promise<void> {
  const byId = new Map((await readWarc(file)).map((r) => [r.id, r]));
  for (const r of written) {
    const read = byId.get(r.recordId);
    expect(read?.offset, r.recordId).toBe(r.offset);
    expect(read?.header('WARC-Block-Digest')).toBe(read?.sha1);
  }
}

it('writes each group of in-memory members with one writev, each record where it says', async () => {
  const calls: (string | number)[][] = [];
  const w = new WarcWriter({ dir, prefix: 'J', maxBytes: 1 << 30, hostLabel: 'h', warcinfo: () => ({ fields: { software: 'Trove' } }), openFile: recordingOpen(calls, { writev: true }) });
  await w.writeGroup([]);
  const first = await w.writeGroup(group([small(10), small(20), small(30)]));
  const second = await w.writeGroup(group([small(5), large, small(7)]));
  await w.close();
  const total = (g: WrittenRecord[]) => g.reduce((s, r) => s + r.length, 0);
  // The warcinfo record at opening, then one writev per group.
  expect(calls).toEqual([['write', calls[0]![1]!], ['writev', 3, total(first)], ['writev', 3, total(second)]]);
  await check(w.filesClosed[0]!, [...first, ...second]);
});

it('finishes a short writev buffer by buffer', async () => {
  const calls: (string | number)[][] = [];
  const w = new WarcWriter({ dir, prefix: 'S', maxBytes: 1 << 30, hostLabel: 'h', warcinfo: () => ({ fields: { software: 'Trove' } }), openFile: recordingOpen(calls, { writev: true, shortBy: 100_000 }) });
  const g = await w.writeGroup(group([small(5), large, small(7)]));
  await w.close();
  expect(calls.slice(1, 2)).toEqual([['writev', 3, g.reduce((s, r) => s + r.length, 0)]]);
  // The rest of the large member, then the last small one.
  expect(calls.slice(2).map((c) => c[0])).toEqual(['write', 'write']);
  await check(w.filesClosed[0]!, g);
});

it('writes member by member on a handle without writev', async () => {
  const calls: (string | number)[][] = [];
  const w = new WarcWriter({ dir, prefix: 'N', maxBytes: 1 << 30, hostLabel: 'h', warcinfo: () => ({ fields: { software: 'Trove' } }), openFile: recordingOpen(calls, { writev: false }) });
  const g = await w.writeGroup(group([small(10), small(20), small(30)]));
  await w.close();
  expect(calls.slice(1)).toEqual(g.map((r) => ['write', r.length]));
  await check(w.filesClosed[0]!, g);
});
