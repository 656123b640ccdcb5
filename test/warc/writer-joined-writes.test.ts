/**
 * The writer puts a group's consecutive small in-memory members on disk with one write (issue 20:
 * one trip to the thread pool per URI instead of one per record), a large member on its own
 * without a copy, and every record still lands where WrittenRecord says, as warcio reads it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { newRecordId } from '../../core/warc/record-header.ts';
import { WarcWriter } from '../../core/warc/warc-writer.ts';
import type { RecordInput, WarcFileHandle } from '../../core/warc/warc-writer.ts';
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

it('writes a group of small members in one write, a large one apart, each where it says', async () => {
  const writes: number[] = [];
  const open = async (p: string): Promise<WarcFileHandle> => {
    const real = await fsp.open(p, 'wx');
    return {
      write: (buf, offset, length, position) => {
        writes.push(length);
        return real.write(buf, offset, length, position);
      },
      truncate: (len) => real.truncate(len),
      sync: () => real.sync(),
      close: () => real.close(),
    };
  };
  const w = new WarcWriter({ dir, prefix: 'J', maxBytes: 1 << 30, hostLabel: 'h', warcinfo: () => ({ fields: { software: 'Trove' } }), openFile: open });
  const small = (n: number) => Buffer.from(`via: https://example.org/${'x'.repeat(n)}\r\n`);
  // Incompressible, so its member is larger than the join limit.
  const large = Buffer.concat(Array.from({ length: 200_000 / 32 }, (_, i) => createHash('sha256').update(String(i)).digest()));

  await w.writeGroup([]); // nothing
  const first = await w.writeGroup(group([small(10), small(20), small(30)]));
  const afterFirst = writes.length;
  const second = await w.writeGroup(group([small(5), large, small(7)]));
  const secondWrites = writes.slice(afterFirst);
  await w.close();

  // The first group: the warcinfo record at opening, then one write for its three records.
  expect(writes.slice(0, afterFirst)).toHaveLength(2);
  expect(writes[afterFirst - 1]).toBe(first.reduce((s, r) => s + r.length, 0));
  // The second: the small one, the large one on its own, the last small one.
  expect(secondWrites).toEqual(second.map((r) => r.length));

  const [file] = w.filesClosed;
  const records = await readWarc(file!);
  const byId = new Map(records.map((r) => [r.id, r]));
  for (const r of [...first, ...second]) {
    const read = byId.get(r.recordId);
    expect(read?.offset, r.recordId).toBe(r.offset);
    expect(read?.header('WARC-Block-Digest')).toBe(read?.sha1);
  }
});
