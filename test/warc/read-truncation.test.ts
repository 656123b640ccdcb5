/**
 * Files cut short at every possible length: the reader must raise a typed error (never hang,
 * never hand back a short record in silence). jwarc's WarcReaderTest does this with cc.warc.gz.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath } from '../helpers/corpus.ts';
import { openArchiveFile } from '../../core/warc/read-records.ts';
import { WarcReadError } from '../../core/warc/read-errors.ts';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'trove-cut-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** Read every record and its whole block; returns the blocks' lengths, or the error thrown. */
async function readFully(file: string): Promise<{ blocks: number[]; contentLengths: number[]; error: unknown }> {
  const blocks: number[] = [];
  const contentLengths: number[] = [];
  try {
    for await (const r of openArchiveFile(file)) {
      contentLengths.push(r.contentLength);
      let n = 0;
      for await (const b of r.block()) n += b.length;
      blocks.push(n);
    }
    return { blocks, contentLengths, error: null };
  } catch (error) {
    return { blocks, contentLengths, error };
  }
}

describe('truncated files', () => {
  it('cc.warc.gz cut at every length 1..N-1 always throws WARC_TRUNCATED at offset 0', { timeout: 60_000 }, async () => {
    const whole = await fs.readFile(corpusPath('warc', 'jwarc', 'cc.warc.gz'));
    const file = path.join(dir, 'cut.warc.gz');
    await fs.writeFile(file, whole);
    const full = await readFully(file);
    expect(full.error).toBeNull();
    expect(full.blocks).toEqual([20931]);
    const codes = new Map<string, number>();
    for (let n = whole.length - 1; n >= 1; n--) {
      await fs.truncate(file, n);
      const { blocks, contentLengths, error } = await readFully(file);
      if (!(error instanceof WarcReadError)) throw new Error(`cut at ${n}: no typed error (${String(error)})`);
      codes.set(error.code, (codes.get(error.code) ?? 0) + 1);
      if (error.code !== 'WARC_TRUNCATED' || error.offset !== 0) throw new Error(`cut at ${n}: ${error.code} at ${error.offset}`);
      // Whatever was handed out before the error was whole.
      blocks.forEach((b, i) => expect(b).toBe(contentLengths[i]));
    }
    expect([...codes.keys()]).toEqual(['WARC_TRUNCATED']);
  });

  it('an uncompressed file cut anywhere gives whole records, then a typed error or a clean end', { timeout: 60_000 }, async () => {
    const whole = await fs.readFile(corpusPath('warc', 'warcio', 'example.warc'));
    const file = path.join(dir, 'cut.warc');
    await fs.writeFile(file, whole);
    const record = [0, 488, 1197, 2566, 3370, 4316];
    // Every 5th length, and every length near a record boundary (where the separator is).
    const cuts = new Set<number>();
    for (let n = 1; n < whole.length; n += 5) cuts.add(n);
    for (const o of [...record, whole.length]) for (let d = -8; d <= 8; d++) if (o + d >= 1 && o + d < whole.length) cuts.add(o + d);
    for (const n of [...cuts].sort((a, b) => b - a)) {
      await fs.truncate(file, n);
      const { blocks, contentLengths, error } = await readFully(file);
      blocks.forEach((b, i) => expect(b).toBe(contentLengths[i]));
      if (error === null) {
        // Only a cut in the CRLF CRLF after a record (or the blank space before the next one) is clean.
        const complete = record.filter((o) => o < n).length;
        expect(blocks.length).toBe(complete);
      } else if (!(error instanceof WarcReadError) || !['WARC_TRUNCATED', 'WARC_TRAILING_DATA', 'WARC_BAD_VERSION'].includes(error.code)) {
        throw new Error(`cut at ${n}: untyped or unexpected error ${String(error)}`);
      }
    }
  });

  it('a gzip file cut inside its second member keeps the first record and says where it broke', async () => {
    const whole = await fs.readFile(corpusPath('warc', 'warcio', 'example.warc.gz'));
    const file = path.join(dir, 'cut2.warc.gz');
    await fs.writeFile(file, whole.subarray(0, 353 + 100));
    const { blocks, error } = await readFully(file);
    expect(blocks).toEqual([249]);
    expect(error).toMatchObject({ code: 'WARC_TRUNCATED', details: { offset: 353 } });
  });
});
