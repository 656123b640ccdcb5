import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { readFileRange } from '../../core/export/file-range.ts';
import { SPOOL_MEMORY, ZipWriter } from '../../core/export/zip-writer.ts';
import { isTroveError } from '../../core/errors.ts';
import { checkWithPythonAndUnzip, checkZipHeaders, readZipEverywhere } from './independent-zip-readers.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-zip-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function* chunksOf(b: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

describe('ZipWriter', () => {
  it('writes STORED, deflated, empty and unknown-size entries that yauzl, unzip and Python read back', async () => {
    const file = path.join(tmp, 'mixed.zip');
    const big = crypto.randomBytes(3 << 20);
    const text = Buffer.from('line of text\n'.repeat(50_000));
    const src = path.join(tmp, 'src.bin');
    fs.writeFileSync(src, big);
    const zip = await ZipWriter.create(file);
    const stored = await zip.addStream('archive/a.warc.gz', readFileRange(src, 0, big.length, 64 << 10), { size: big.length });
    const deflated = await zip.addStream('pages/pages.jsonl', chunksOf(text, 1000), { compress: true });
    await zip.addBuffer('empty.txt', Buffer.alloc(0));
    await zip.addBuffer('dir/ünïcode name.json', Buffer.from('{"a":1}'), { compress: true });
    expect(fs.existsSync(file)).toBe(false);
    await zip.close();
    expect(fs.existsSync(`${file}.part`)).toBe(false);

    expect(stored.sha256).toBe(crypto.createHash('sha256').update(big).digest('hex'));
    expect(stored.crc32).toBe(zlib.crc32(big));
    expect(stored.compressedSize).toBe(big.length);
    expect(deflated.size).toBe(text.length);
    expect(deflated.compressedSize).toBeLessThan(text.length / 10);

    const entries = await readZipEverywhere(file);
    expect(entries.map((e) => e.name)).toEqual(['archive/a.warc.gz', 'pages/pages.jsonl', 'empty.txt', 'dir/ünïcode name.json']);
    expect(entries[0]!.compressionMethod).toBe(0);
    expect(entries[0]!.data.equals(big)).toBe(true);
    expect(entries[0]!.dataOffset).toBe(stored.dataOffset);
    // A STORED entry is a plain byte range of the ZIP file.
    const raw = fs.readFileSync(file);
    expect(raw.subarray(stored.dataOffset, stored.dataOffset + big.length).equals(big)).toBe(true);
    expect(entries[1]!.compressionMethod).toBe(8);
    expect(entries[1]!.data.equals(text)).toBe(true);
    expect(entries[2]!.data.length).toBe(0);
    for (const e of entries) expect(e.generalPurposeBitFlag & 8).toBe(0);

    expect(fs.readdirSync(tmp).filter((f) => f.includes('.spool'))).toEqual([]);
  });

  it('spools an entry of unknown size past the memory limit to disk, and writes its header with the final sizes', async () => {
    const file = path.join(tmp, 'spooled.zip');
    const noise = crypto.randomBytes(SPOOL_MEMORY + (2 << 20)); // incompressible: deflated, still past what is held in memory
    const zip = await ZipWriter.create(file);
    const e = await zip.addStream('pages/pages.jsonl', chunksOf(noise, 1 << 20), { compress: true });
    const s = await zip.addStream('indexes/index.cdx.gz', chunksOf(Buffer.from('stored, size unknown'), 3));
    await zip.close();
    expect(fs.readdirSync(tmp).filter((f) => f.includes('.spool'))).toEqual([]);
    expect(e.size).toBe(noise.length);
    expect(e.compressedSize).toBeGreaterThan(SPOOL_MEMORY);
    expect(s.compressed).toBe(false);
    const entries = await readZipEverywhere(file);
    expect(entries[0]!.data.equals(noise)).toBe(true);
    expect(entries[1]!.data.toString()).toBe('stored, size unknown');
    // No ZIP64 for entries that do not need it: plain 30-byte local headers, no extra fields.
    const raw = fs.readFileSync(file);
    for (const x of [e, s]) {
      expect(raw.readUInt16LE(x.headerOffset + 28)).toBe(0);
      expect(raw.readUInt16LE(x.headerOffset + 4)).toBe(20);
      expect(raw.readUInt32LE(x.headerOffset + 14)).toBe(x.crc32);
    }
  });

  it('switches to ZIP64 end records past 65,535 entries', async () => {
    const file = path.join(tmp, 'many.zip');
    const zip = await ZipWriter.create(file);
    const n = 66_000;
    for (let i = 0; i < n; i++) await zip.addBuffer(`e/${i}`, Buffer.from(String(i)));
    await zip.close();
    // yauzl finds the count in the ZIP64 end record (iterating 66,000 entries with it takes 10 s,
    // so the listing is checked with Python's zipfile when present).
    const zf = await yauzl.openPromise(file);
    expect(zf.entryCount).toBe(n);
    zf.close();
    const tail = fs.readFileSync(file).subarray(-98);
    expect(tail.readUInt32LE(0)).toBe(0x06064b50);
    expect(tail.readUInt32LE(56)).toBe(0x07064b50);
    expect(tail.readUInt16LE(76 + 8)).toBe(0xffff);
    const r = spawnSync('python3', ['-c', 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); n = z.namelist(); print(len(n), n[-1], z.read(n[-1]).decode())', file], {
      encoding: 'utf8',
    });
    expect(r.stdout.trim()).toBe(`${n} e/${n - 1} ${n - 1}`);
    expect(checkWithPythonAndUnzip(file)).toBe(n);
  }, 60_000);

  it('refuses a stream that does not match its declared size, and abort leaves nothing behind', async () => {
    const file = path.join(tmp, 'bad.zip');
    const zip = await ZipWriter.create(file);
    const err = await zip.addStream('x', chunksOf(Buffer.alloc(10), 4), { size: 11 }).catch((e: unknown) => e);
    expect(isTroveError(err, 'EXPORT_SIZE_MISMATCH')).toBe(true);
    await zip.abort();
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(`${file}.part`)).toBe(false);
  });

  it('refuses entry names that could escape a folder', async () => {
    const zip = await ZipWriter.create(path.join(tmp, 'names.zip'));
    for (const name of ['../x', '/abs', 'a/../b', 'a\\b', '', 'a//b']) {
      const err = await zip.addBuffer(name, Buffer.from('x')).catch((e: unknown) => e);
      expect(isTroveError(err, 'EXPORT_ZIP_BAD_NAME'), name).toBe(true);
    }
    await zip.abort();
  });

  // Writes 4.3 GB: run with TROVE_SLOW_TESTS=1.
  it.skipIf(!process.env.TROVE_SLOW_TESTS)('writes ZIP64 sizes and offsets for an entry past 4 GiB', async () => {
    const src = path.join(tmp, 'sparse.bin');
    const size = 2 ** 32 + 12345;
    const fh = fs.openSync(src, 'w');
    fs.writeSync(fh, Buffer.from('tail!'), 0, 5, size - 5);
    fs.closeSync(fh);
    const file = path.join(tmp, 'big.zip');
    const zip = await ZipWriter.create(file);
    const big = await zip.addStream('archive/big.warc', readFileRange(src, 0, size, 4 << 20), { size });
    await zip.addBuffer('after.txt', Buffer.from('after'), { compress: true });
    await zip.close();
    fs.rmSync(src);
    const zf = await yauzl.openPromise(file, { autoClose: false });
    const got: Record<string, yauzl.Entry> = {};
    for await (const e of zf.eachEntry()) got[e.fileName] = e;
    expect(got['archive/big.warc']!.uncompressedSize).toBe(size);
    expect(got['archive/big.warc']!.crc32).toBe(big.crc32);
    expect(got['after.txt']!.relativeOffsetOfLocalHeader).toBeGreaterThan(2 ** 32);
    const parts: Buffer[] = [];
    for await (const c of await zf.openReadStreamPromise(got['after.txt']!)) parts.push(c as Buffer);
    expect(Buffer.concat(parts).toString()).toBe('after');
    zf.close();
    expect(await checkZipHeaders(file)).toBe(2);
    expect(checkWithPythonAndUnzip(file)).toBe(2);
    fs.rmSync(file);
  }, 600_000);
});
