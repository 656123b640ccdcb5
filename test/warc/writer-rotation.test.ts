import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isTroveError } from '../../core/errors.ts';
import { newRecordId } from '../../core/warc/record-header.ts';
import { WarcWriter } from '../../core/warc/warc-writer.ts';
import type { RecordInput } from '../../core/warc/warc-writer.ts';
import { finalNameOf, parseWarcFileName, warcFileName } from '../../core/warc/warc-file-name.ts';
import { readWarc } from './writer-read-back.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-rotate-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function group(n: number): RecordInput[] {
  const id = newRecordId();
  const url = `https://example.org/page/${n}`;
  return [
    {
      type: 'response',
      targetUri: url,
      date: new Date(),
      recordId: id,
      contentType: 'application/http; msgtype=response',
      blockParts: [Buffer.from(`HTTP/1.1 200 OK\r\n\r\npage ${n} `.padEnd(400, '.'))],
    },
    {
      type: 'request',
      targetUri: url,
      date: new Date(),
      contentType: 'application/http; msgtype=request',
      fields: [['WARC-Concurrent-To', id]],
      blockParts: [Buffer.from(`GET /page/${n} HTTP/1.1\r\n\r\n`)],
    },
  ];
}

describe('warc-file-name', () => {
  it('formats and parses Heritrix-style names', () => {
    const d = new Date('2026-01-02T03:04:05.006Z');
    const name = warcFileName({ prefix: 'TROVE', date: d, serial: 7, pid: 4242, host: 'my host/x' });
    expect(name).toBe('TROVE-20260102030405006-00007-4242~my-host-x.warc.gz');
    expect(warcFileName({ prefix: 'T', date: d, serial: 123456, pid: 1, host: 'h', gzip: false })).toBe(
      'T-20260102030405006-123456-1~h.warc',
    );
    expect(parseWarcFileName(`${name}.open`)).toEqual({
      prefix: 'TROVE',
      timestamp: '20260102030405006',
      serial: 7,
      pid: 4242,
      host: 'my-host-x',
      gzip: true,
      open: true,
    });
    expect(parseWarcFileName('random.warc.gz')).toBeNull();
    expect(finalNameOf(`${name}.open`)).toBe(name);
    expect(() => finalNameOf(name)).toThrow(expect.objectContaining({ code: 'WARC_NOT_OPEN_FILE' }));
    expect(() => warcFileName({ prefix: '../x', date: d, serial: 0, pid: 1, host: 'h' })).toThrow(
      expect.objectContaining({ code: 'WARC_BAD_FILE_NAME' }),
    );
  });
});

describe('WarcWriter files', () => {
  it('writes to NAME.warc.gz.open and renames on close', async () => {
    const opened: string[] = [];
    const closed: string[] = [];
    const w = new WarcWriter({
      dir: path.join(dir, 'sub', 'warcs'),
      prefix: 'TROVE',
      maxBytes: 1 << 30,
      hostLabel: 'h',
      warcinfo: () => ({ fields: { software: 'Trove' } }),
      onFileOpened: (p) => opened.push(p),
      onFileClosed: (p) => closed.push(p),
    });
    expect(w.currentFile).toBeNull();
    await w.writeGroup(group(1));
    const open = w.currentFile!;
    expect(open.endsWith('.warc.gz.open')).toBe(true);
    expect(fs.existsSync(open)).toBe(true);
    expect(opened).toEqual([open]);
    await w.flush();
    await w.close();
    expect(fs.existsSync(open)).toBe(false);
    expect(fs.existsSync(finalNameOf(open))).toBe(true);
    expect(closed).toEqual([finalNameOf(open)]);
    expect(w.currentFile).toBeNull();
    await expect(w.writeGroup(group(2))).rejects.toSatisfy((e: unknown) => isTroveError(e, 'WARC_WRITER_CLOSED'));
    await w.close(); // idempotent
  });

  it('rotates only between groups; every file starts with its own warcinfo and serials count up', async () => {
    const w = new WarcWriter({
      dir,
      prefix: 'ROT',
      maxBytes: 600, // smaller than one group: every group after the first rotates
      startSerial: 41,
      hostLabel: 'h',
      warcinfo: () => ({ fields: { software: 'Trove', isPartOf: 'rotation' } }),
    });
    const written = [];
    for (let n = 0; n < 5; n++) written.push(await w.writeGroup(group(n)));
    await w.close();

    const files = w.filesClosed;
    expect(files).toHaveLength(5);
    expect(files.map((f) => parseWarcFileName(path.basename(f))!.serial)).toEqual([41, 42, 43, 44, 45]);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.open'))).toEqual([]);

    let total = 0;
    for (const [i, file] of files.entries()) {
      const recs = await readWarc(file);
      expect(recs.map((r) => r.type)).toEqual(['warcinfo', 'response', 'request']);
      const info = recs[0]!;
      expect(info.header('WARC-Filename')).toBe(path.basename(file));
      for (const r of recs.slice(1)) expect(r.header('WARC-Warcinfo-ID')).toBe(info.id);
      // The group never spans files.
      expect(written[i]!.every((x) => x.filename === path.basename(file))).toBe(true);
      expect(recs[2]!.concurrentTo).toEqual([recs[1]!.id]);
      total += fs.statSync(file).size;
    }
    expect(w.bytesWritten).toBe(total);
  });

  it('keeps filling a file while it is under maxBytes', async () => {
    const w = new WarcWriter({ dir, prefix: 'FILL', maxBytes: 5000, hostLabel: 'h', warcinfo: () => ({ fields: {} }) });
    for (let n = 0; n < 12; n++) await w.writeGroup(group(n));
    await w.close();
    const sizes = w.filesClosed.map((f) => fs.statSync(f).size);
    expect(w.filesClosed.length).toBeGreaterThan(1);
    // Each file but the last went past maxBytes by less than one group (~1 KB here).
    for (const s of sizes.slice(0, -1)) {
      expect(s).toBeGreaterThanOrEqual(5000);
      expect(s).toBeLessThan(5000 + 1500);
    }
    const counts = await Promise.all(w.filesClosed.map(async (f) => (await readWarc(f, { keepBlocks: false })).length));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(12 * 2 + w.filesClosed.length);
  });

  it('runs concurrent writeGroup calls one at a time, in call order', async () => {
    const w = new WarcWriter({ dir, prefix: 'Q', maxBytes: 1 << 30, hostLabel: 'h', warcinfo: () => ({ fields: {} }) });
    const results = await Promise.all(Array.from({ length: 20 }, (_, n) => w.writeGroup(group(n))));
    await w.close();
    const recs = await readWarc(w.filesClosed[0]!);
    expect(recs.filter((r) => r.type === 'response').map((r) => r.header('WARC-Target-URI'))).toEqual(
      Array.from({ length: 20 }, (_, n) => `https://example.org/page/${n}`),
    );
    const offsets = results.flat().map((r) => r.offset);
    expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
  });

  it('refuses to clobber an existing final file name', async () => {
    // Two writers with the same serial in the same millisecond: pin the clock to force the clash.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-04T05:06:07.008Z'));
    try {
      const make = () => new WarcWriter({ dir, prefix: 'X', maxBytes: 1 << 30, hostLabel: 'h', warcinfo: () => ({ fields: {} }) });
      const w1 = make();
      await w1.writeGroup(group(1));
      await w1.close();
      const taken = w1.filesClosed[0]!;
      const before = fs.readFileSync(taken);
      const w2 = make();
      await expect(w2.writeGroup(group(2))).rejects.toSatisfy(
        (e: unknown) => isTroveError(e, 'WARC_WRITE_FAILED') && e.details.causeCode === 'EEXIST',
      );
      expect(fs.readFileSync(taken).equals(before)).toBe(true);
      expect(fs.readdirSync(dir)).toEqual([path.basename(taken)]);
      await w2.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
