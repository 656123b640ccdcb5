/**
 * computeFixity reads a file a buffer at a time (one reused 1 MiB buffer, so sealing a large WARC
 * holds 1 MiB rather than a collection's worth of chunks): the hashes must be those of the bytes
 * themselves, for whole files and ranges across buffer boundaries, computed here by Node's crypto
 * and zlib over the bytes in one piece.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeFixity } from '../../core/archive/file-fixity.ts';
import { prng } from '../helpers/seeded-random.ts';

const MIB = 1 << 20;
let dir: string;
let file: string;
let bytes: Buffer;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-fixity-'));
  file = path.join(dir, 'data.warc.gz');
  const rand = prng(20);
  bytes = Buffer.alloc(3 * MIB + 17);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rand() * 256);
  fs.writeFileSync(file, bytes);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const expected = (b: Buffer) => ({ sha256: crypto.createHash('sha256').update(b).digest('hex'), crc32: crc32(b) >>> 0 });

describe('computeFixity', () => {
  it('hashes a whole file of several buffers and a partial last one', async () => {
    expect(await computeFixity(file, 0, bytes.length)).toEqual(expected(bytes));
  });

  it('hashes ranges that start and end inside a buffer, and across buffer boundaries', async () => {
    for (const [start, length] of [
      [0, 1],
      [5, MIB],
      [MIB - 3, MIB + 6],
      [2 * MIB + 1, bytes.length - 2 * MIB - 1],
      [100, 0],
    ] as const) {
      expect(await computeFixity(file, start, length)).toEqual(expected(bytes.subarray(start, start + length)));
    }
  });

  it('fails with SHORT_FILE when the file ends before the range does', async () => {
    await expect(computeFixity(file, MIB, bytes.length)).rejects.toMatchObject({ code: 'SHORT_FILE' });
  });
});
