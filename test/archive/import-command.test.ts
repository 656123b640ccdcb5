import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { registerImportCommand } from '../../core/cli/import-command.ts';
import { openArchive } from '../../core/archive/archive-dir.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { removeTempDirs, tempDir } from '../replay/archive-fixture.ts';

afterAll(removeTempDirs);
afterEach(() => {
  process.exitCode = undefined;
});

async function run(...args: string[]): Promise<{ out: string; err: string; code: number | undefined }> {
  let out = '';
  let err = '';
  const program = new Command().exitOverride();
  registerImportCommand(program, { stdout: { write: (c: string) => (out += c) }, stderr: { write: (c: string) => (err += c), isTTY: false } });
  process.exitCode = undefined;
  await program.parseAsync(['import', ...args], { from: 'user' });
  return { out, err, code: process.exitCode as number | undefined };
}

describe('trove import', () => {
  it('imports files and prints a summary', async () => {
    const dir = path.join(tempDir(), 'arch');
    const r = await run(corpusPath('warc/warcio/example.warc.gz'), corpusPath('wacz/valid_example_1.wacz'), '--archive', dir);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^imported 2 files: 10 records, 2 pages, 0 problems\n/);
    expect(r.out).toContain('example.warc.gz: 6 records, 1 pages');
    expect(r.err).toBe('');
    const a = openArchive(dir, { create: false });
    try {
      expect(a.index.count()).toBe(10);
    } finally {
      a.close();
    }
  });

  it('copies with --copy and lists problems on stderr with exit code 1', async () => {
    const dir = path.join(tempDir(), 'arch');
    const garbage = corpusPath('warc/jwat/invalid-warcfile-record-then-garbage.warc');
    const r = await run(garbage, '--archive', dir, '--copy');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^imported 1 file: 1 records, 0 pages, 1 problem\n/);
    expect(r.err).toContain(`${garbage} @1135: WARC_TRAILING_DATA`);
    expect(fs.existsSync(path.join(dir, 'warcs', path.basename(garbage)))).toBe(true);
  });
});
