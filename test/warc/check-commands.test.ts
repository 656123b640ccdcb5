/**
 * `trove check` and `trove index` run in process through commander, capturing stdout, stderr
 * and process.exitCode (the bin does not exist yet).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath } from '../helpers/corpus.ts';
import { registerCheckCommand } from '../../core/cli/check-command.ts';
import { registerIndexCommand } from '../../core/cli/index-command.ts';
import { registerImportCommand } from '../../core/cli/import-command.ts';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'trove-cli-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** Run `trove <argv>`; returns what it printed and the exit code it set. */
async function run(...argv: string[]): Promise<{ out: string; err: string; code: number }> {
  const program = new Command().exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  registerCheckCommand(program);
  registerIndexCommand(program);
  registerImportCommand(program);
  let out = '';
  let err = '';
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((s: string | Uint8Array) => ((out += String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) => ((err += String(s)), true)) as typeof process.stderr.write;
  const before = process.exitCode;
  process.exitCode = undefined;
  let code: number;
  try {
    await program.parseAsync(argv, { from: 'user' });
    code = Number(process.exitCode ?? 0);
  } catch (e) {
    code = (e as { exitCode?: number }).exitCode === 0 ? 0 : 2; // commander usage errors, as core/cli/main.ts maps them
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    process.exitCode = before;
  }
  return { out, err, code };
}

describe('trove check', () => {
  it('exits 0 for valid files (warnings allowed) and prints one line per problem', async () => {
    const ok = await run('check', corpusPath('warc', 'warcio', 'example.warc.gz'), corpusPath('warc', 'warcio.js', 'example-url-agnostic-revisit.warc.gz'));
    expect(ok.code).toBe(0);
    const lines = ok.out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/example-url-agnostic-revisit\.warc\.gz:0: warning WARC_BAD_SEPARATOR /);
    expect(ok.err).toContain('example.warc.gz: 6 records, 0 errors, 0 warnings');
  });

  it('exits 1 when a file is invalid: the example-digest.warc payload digest failure', async () => {
    const bad = await run('check', corpusPath('warc', 'warcio', 'example-digest.warc'));
    expect(bad.code).toBe(1);
    expect(bad.out.split('\n').filter((l) => l.includes(': error '))).toEqual([
      `${corpusPath('warc', 'warcio', 'example-digest.warc')}:0: error WARC_PAYLOAD_DIGEST_MISMATCH payload digest failed: WARC-Payload-Digest says 1112H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ`,
    ]);
    const quiet = await run('check', '--errors-only', corpusPath('warc', 'warcio', 'example-digest.warc'));
    expect(quiet.out.trim().split('\n')).toHaveLength(1);
  });

  it('exits 2 for bad usage: no file, an unknown option, a file that cannot be opened', async () => {
    expect((await run('check')).code).toBe(2);
    expect((await run('check', '--frobnicate', corpusPath('warc', 'warcio', 'example.warc'))).code).toBe(2);
    const missing = await run('check', path.join(dir, 'missing.warc'));
    expect(missing.code).toBe(2);
    expect(missing.out).toContain(':0: error WARC_OPEN_FAILED ');
  });
});

describe('trove check on WACZ packages', () => {
  it('a valid package exits 0 with its summary; an invalid one exits 1, each problem naming package!/entry', async () => {
    const ok = await run('check', corpusPath('wacz', 'valid_example_1.wacz'));
    expect(ok.code).toBe(0);
    expect(ok.out).toBe('');
    expect(ok.err).toBe(`${corpusPath('wacz', 'valid_example_1.wacz')}: 4 records, 0 errors, 0 warnings; no credentials in request records\n`);
    const bad = await run('check', '--errors-only', corpusPath('wacz', 'invalid_example_1.wacz'));
    expect(bad.code).toBe(1);
    expect(bad.out).toContain(`${corpusPath('wacz', 'invalid_example_1.wacz')}!/data/indexes/index.cdx.gz:0: error WACZ_RESOURCE_MISSING `);
    expect(bad.out).not.toContain(' warning ');
    expect(bad.err).toContain('(INVALID)');
  });

  it('a package found by its ZIP magic whatever its name; a missing .wacz exits 2', async () => {
    const renamed = path.join(dir, 'package.zip');
    await fs.copyFile(corpusPath('wacz', 'valid_signed_example_1.wacz'), renamed);
    const r = await run('check', renamed);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`${renamed}: 4 records, 0 errors, 0 warnings`);
    const missing = await run('check', path.join(dir, 'missing.wacz'));
    expect(missing.code).toBe(2);
    expect(missing.out).toContain(':0: error WACZ_OPEN_FAILED ');
  });
});

describe('trove index', () => {
  it('prints sorted CDXJ for several files', async () => {
    const r = await run('index', corpusPath('warc', 'warcio', 'example.warc.gz'), corpusPath('warc', 'warcio.js', 'example-resource.warc.gz'));
    expect(r.code).toBe(0);
    expect(r.out.split('\n')).toEqual([
      'com,example)/ 20170306040206 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"1228","offset":"784","filename":"example.warc.gz"}',
      'com,example)/ 20170306040348 {"url":"http://example.com/","mime":"warc/revisit","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"586","offset":"2621","filename":"example.warc.gz"}',
      'com,example,some:8080)/ 20200405201750 {"url":"http://some.example.com:8080/","mime":"text/plain","digest":"QEF4QP424P5IOPMURMAC4K6KNUTHXQW2","length":"261","offset":"0","filename":"example-resource.warc.gz"}',
      '',
    ]);
  });

  it('writes --output, reports broken files on stderr with exit 1, and missing ones with exit 2', async () => {
    const out = path.join(dir, 'index.cdxj');
    const r = await run('index', '--output', out, corpusPath('warc', 'jwat', 'invalid-warcfile-record-then-garbage.warc'));
    expect(r.out).toBe('');
    expect(r.code).toBe(1);
    expect(r.err).toContain(':1135: error WARC_TRAILING_DATA ');
    expect((await fs.readFile(out, 'utf8')).split('\n')[0]).toMatch(/^org,archive\)\/robots\.txt 20080430204825 /);
    expect((await run('index', path.join(dir, 'nope.warc.gz'))).code).toBe(2);
    expect((await run('index')).code).toBe(2);
  });
});

describe('no silent success on empty or unreadable input', () => {
  it('index, check and import each say so and exit non-zero for an empty file, an empty .wacz and a directory', async () => {
    const empty = path.join(dir, 'empty.warc.gz');
    const emptyWacz = path.join(dir, 'empty.wacz');
    await fs.writeFile(empty, '');
    await fs.writeFile(emptyWacz, '');
    const archive = path.join(dir, 'archive-empty');

    const index = await run('index', empty);
    expect(index.code).toBe(1);
    expect(index.out).toBe('');
    expect(index.err).toContain(':0: error WARC_NO_RECORDS ');

    const check = await run('check', empty);
    expect(check.code).toBe(1);
    expect(check.out).toContain(':0: error WARC_NO_RECORDS ');

    const checkWacz = await run('check', emptyWacz);
    expect(checkWacz.code).toBeGreaterThan(0);
    expect(checkWacz.out).toMatch(/error WACZ_/);

    for (const input of [empty, emptyWacz, dir]) {
      const imported = await run('import', '--archive', archive, '--no-progress', input);
      expect(imported.code).toBe(1);
      expect(imported.err).toMatch(/trove import: .*: (IMPORT_NO_RECORDS|IMPORT_FILE_NOT_FOUND|WACZ_OPEN_FAILED): /);
    }

    const dirIndex = await run('index', dir);
    expect(dirIndex.code).toBe(2);
    expect(dirIndex.err).toContain('WARC_OPEN_FAILED');
  });

  it('a WARC holding only a warcinfo record indexes to nothing with a note, and exits 0', async () => {
    const r = await run('index', corpusPath('warc', 'jwarc', 'gzip_extra_sl.warc.gz'));
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toContain('no record to index');
  });
});
