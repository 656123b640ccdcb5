/**
 * A WARC read as a byte range of a bigger file (file-range.ts: how `trove check` reads a WARC
 * stored in a WACZ, in place) reads exactly as the WARC file alone: the same records at the same
 * offsets, the same index lines, the same check, and a range cut short breaks where the file
 * would. Gzip per record and uncompressed, between junk bytes that must never be read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexFile } from '../../core/archive/cdxj-index.ts';
import { checkWarcFile } from '../../core/warc/check-warc.ts';
import { openArchiveFile } from '../../core/warc/read-records.ts';
import type { CheckOptions } from '../../core/warc/check-warc.ts';
import { corpusPath } from '../helpers/corpus.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-file-range-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function records(file: string, range?: { start: number; end: number }): Promise<string[]> {
  const out: string[] = [];
  for await (const r of openArchiveFile(file, range ? { range } : {})) out.push(`${r.offset} ${r.length} ${r.type} ${r.targetUri}`);
  return out;
}

async function index(file: string, range?: { start: number; end: number }): Promise<string[]> {
  const out: string[] = [];
  for await (const e of indexFile(file, { filename: 'x', ...(range ? { range } : {}) })) out.push(JSON.stringify(e));
  return out;
}

const checked = async (file: string, opts: CheckOptions = {}) => {
  const r = await checkWarcFile(file, opts);
  return { records: r.records, problems: r.problems.map((p) => `${p.offset} ${p.code}`) };
};

describe('a WARC read as a range of a bigger file', () => {
  for (const name of ['example.warc.gz', 'example.warc']) {
    it(`${name}: same records, offsets, index and check as the file alone; cut short, the same break`, async () => {
      const alone = corpusPath('warc', 'warcio', name);
      const warc = fs.readFileSync(alone);
      // Gzip magic and WARC/1.0 before and after: read by mistake, they would show.
      const before = Buffer.from('\x1f\x8bWARC/1.0\r\njunk before');
      const after = Buffer.from('WARC/1.0\r\n\x1f\x8b junk after');
      const inside = path.join(dir, `inside-${name}`);
      fs.writeFileSync(inside, Buffer.concat([before, warc, after]));
      const range = { start: before.length, end: before.length + warc.length };

      expect(await records(inside, range)).toEqual(await records(alone));
      expect(await index(inside, range)).toEqual(await index(alone));
      expect(await checked(inside, { range })).toEqual(await checked(alone));

      const cut = path.join(dir, `cut-${name}`);
      fs.writeFileSync(cut, warc.subarray(0, warc.length - 40));
      expect(await checked(inside, { range: { start: range.start, end: range.end - 40 } })).toEqual(await checked(cut));
    });
  }
});
