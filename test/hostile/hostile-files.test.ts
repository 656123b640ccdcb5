/**
 * Hostile and damaged files: every input Trove reads from outside (WARC/ARC files, CDXJ indexes,
 * WACZ packages, a crawl's configuration and database) ends in a typed TroveError that says
 * where (byte offset, line number, entry name) — never a crash, a hang, a silent skip, or a
 * write outside the target directory.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexFile } from '../../core/archive/cdxj-index.ts';
import { MAX_CDXJ_LINE, readCdxjLines } from '../../core/archive/cdxj-read.ts';
import { importFiles } from '../../core/archive/import-warc.ts';
import { addCrawlOptions, settingsFromOptions } from '../../core/cli/crawl-options.ts';
import { registerImportCommand } from '../../core/cli/import-command.ts';
import { resumeCrawl, startCrawl } from '../../core/crawl/start-crawl.ts';
import { isTroveError, TroveError, type ErrorCode } from '../../core/errors.ts';
import { checkWarcFile } from '../../core/warc/check-warc.ts';
import { openArchiveFile } from '../../core/warc/read-records.ts';
import { startHostileServer, type HostileServer } from '../fixtures/hostile-server.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { FAST } from '../helpers/run-crawl.ts';
import { craftZip, type CraftedEntry } from './zip-craft.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-hostile-files-'));
let n = 0;
function file(data: Buffer | string, ext = '.bin'): string {
  const p = path.join(root, `f${++n}${ext}`);
  fs.writeFileSync(p, data);
  return p;
}

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer();
});
afterAll(async () => {
  await hostile.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Read a WARC to the end; the records read and the error it ended with. */
async function readAll(p: string): Promise<{ records: number; error: unknown }> {
  let records = 0;
  try {
    for await (const r of openArchiveFile(p)) {
      records++;
      for await (const chunk of r.block()) void chunk;
    }
    return { records, error: null };
  } catch (error) {
    return { records, error };
  }
}

async function indexAll(p: string): Promise<{ entries: number; error: unknown }> {
  let entries = 0;
  try {
    for await (const e of indexFile(p)) void (e && entries++);
    return { entries, error: null };
  } catch (error) {
    return { entries, error };
  }
}

describe('damaged WARC files', () => {
  const example = fs.readFileSync(corpusPath('warc', 'warcio', 'example.warc'));
  const exampleGz = fs.readFileSync(corpusPath('warc', 'warcio', 'example.warc.gz'));
  const cc = fs.readFileSync(corpusPath('warc', 'jwarc', 'cc.warc.gz'));

  // [what, bytes, code, offset, good records before the error]
  const cases: [string, () => Buffer, ErrorCode, number, number][] = [
    ['uncompressed, cut inside a block', () => example.subarray(0, 3000), 'WARC_TRUNCATED', 2566, 4],
    ['uncompressed, cut inside the first header', () => example.subarray(0, 100), 'WARC_TRUNCATED', 0, 0],
    ['per-record gzip, cut inside the 4th member', () => exampleGz.subarray(0, 2100), 'WARC_TRUNCATED', 2012, 3],
    ['per-record gzip, a byte flipped in the 3rd member', () => flip(exampleGz, 1000), 'WARC_BAD_GZIP', 784, 2],
    ['one-record gzip, cut short', () => cc.subarray(0, cc.length - 7), 'WARC_TRUNCATED', 0, 0],
    ['garbage after the last record', () => Buffer.concat([example, Buffer.from('this is not a record\r\n')]), 'WARC_TRAILING_DATA', example.length, 6],
    ['not a WARC at all', () => Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n'), 'WARC_BAD_VERSION', 0, 0],
    ['a header block that never ends', () => Buffer.concat([Buffer.from('WARC/1.1\r\n'), Buffer.alloc(2 << 20, 'X-A: b\r\n')]), 'WARC_BAD_HEADER', 0, 0],
  ];

  it.each(cases)('%s: the reader, the indexer and check give the typed error and its offset', async (_what, make, code, offset, good) => {
    const p = file(make(), '.warc');
    const read = await readAll(p);
    expect(isTroveError(read.error, code), String(read.error)).toBe(true);
    expect((read.error as TroveError).details.offset).toBe(offset);
    // Records are yielded before the error; the last one may be the one the error is in.
    expect(read.records - (read.records > good ? 1 : 0)).toBe(good);

    const idx = await indexAll(p);
    expect(isTroveError(idx.error, code)).toBe(true);
    expect((idx.error as TroveError).details.offset).toBe(offset);

    const check = await checkWarcFile(p);
    expect(check.valid).toBe(false);
    expect(check.problems).toContainEqual(expect.objectContaining({ level: 'error', code, offset }));
  });

  it('a file that cannot be read is WARC_OPEN_FAILED, not an fs error', async () => {
    const read = await readAll(path.join(root, 'missing.warc'));
    expect(isTroveError(read.error, 'WARC_OPEN_FAILED')).toBe(true);
    const dir = await readAll(root);
    expect(isTroveError(dir.error)).toBe(true);
  });
});

function flip(b: Buffer, at: number): Buffer {
  const c = Buffer.from(b);
  c[at]! ^= 0x55;
  return c;
}

describe('damaged CDXJ', () => {
  const good = 'com,example)/ 20240101000000 {"url":"http://example.com/","status":"200","digest":"AAAA"}';

  async function lines(text: string | Buffer, max?: number): Promise<{ count: number; error: unknown }> {
    let count = 0;
    try {
      for await (const l of readCdxjLines(Readable.from([Buffer.from(text)]), 'x.cdxj', max)) void (l && count++);
      return { count, error: null };
    } catch (error) {
      return { count, error };
    }
  }

  it('reads captures and passes over blank lines, comments and !meta', async () => {
    expect(await lines(`!meta 0 {"format":"cdxj-gzip-1.0"}\n# comment\n\n${good}\r\n${good}`)).toEqual({ count: 2, error: null });
  });

  it.each([
    ['a garbage line', `${good}\n${good}\nhello, this is not CDXJ\n${good}\n`, 3, good.length * 2 + 2],
    ['broken JSON', `${good}\ncom,x)/ 20240101000000 {"url": "http://x/",\n`, 2, good.length + 1],
    ['JSON that is not an object', `com,x)/ 20240101000000 {"url"}\n`, 1, 0],
    ['no url', `${good}\ncom,x)/ 20240101000000 {"status":"200"}\n`, 2, good.length + 1],
    ['a CDX11 line', ` CDX N b a m s k r M S V g\ncom,x)/ 20240101000000 http://x/ text/html 200 AAAA - - 100 0 x.warc.gz\n`, 1, 0],
    ['bytes that are not UTF-8', Buffer.concat([Buffer.from(`${good}\ncom,x)/ 20240101000000 {"url":"http://x/\xff"}\n`, 'latin1')]), 2, good.length + 1],
  ])('%s → CDXJ_BAD_LINE naming the line and its byte offset', async (_what, text, line, offset) => {
    const r = await lines(text);
    expect(isTroveError(r.error, 'CDXJ_BAD_LINE'), String(r.error)).toBe(true);
    expect((r.error as TroveError).details).toMatchObject({ line, offset, file: 'x.cdxj' });
    expect((r.error as TroveError).message).toContain(`line ${line}`);
  });

  it('a line with no end is refused at the length cap, not buffered whole', async () => {
    const huge = Buffer.alloc(MAX_CDXJ_LINE + 10, 'a');
    const before = process.memoryUsage().rss;
    const r = await lines(Buffer.concat([Buffer.from(`${good}\n`), huge]));
    expect(isTroveError(r.error, 'CDXJ_BAD_LINE')).toBe(true);
    expect((r.error as TroveError).details).toMatchObject({ line: 2, offset: good.length + 1 });
    expect(process.memoryUsage().rss - before).toBeLessThan(64 << 20);
    expect(r.count).toBe(1);
  });

  it('--dedup-from a garbled CDXJ: DEDUP_SOURCE_INVALID with the line number', async () => {
    const cdxj = file(`${good}\n${good}\nnot a capture at all\n`, '.cdxj');
    const dir = path.join(root, 'dedup-crawl');
    const err = await startCrawl({ dir, settings: { ...FAST, seeds: [`${hostile.origin}/ok`], dedupFrom: [cdxj] } }).catch((e: unknown) => e);
    expect(isTroveError(err, 'DEDUP_SOURCE_INVALID'), String(err)).toBe(true);
    expect((err as TroveError).details).toMatchObject({ line: 3, file: cdxj });
    // Nothing of the bad source stays loaded: fixing the file and starting again loads it once.
    fs.writeFileSync(cdxj, `${good}\n`);
    const crawl = await startCrawl({ dir, settings: {} });
    await crawl.finished();
    const db = new Database(path.join(dir, 'crawl.sqlite'), { readonly: true });
    try {
      expect(db.prepare('SELECT COUNT(*) AS n FROM prior_captures').get()).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });
});

describe('hostile WACZ packages', () => {
  const warc = fs.readFileSync(corpusPath('warc', 'warcio', 'example.warc'));
  const datapackage = Buffer.from(JSON.stringify({ profile: 'data-package', wacz_version: '1.1.1', resources: [] }));

  /** Import into <sandbox>/archive; returns the problems and every path written anywhere in the sandbox. */
  async function importInSandbox(entries: CraftedEntry[]): Promise<{ codes: string[]; written: string[]; sandbox: string }> {
    const sandbox = fs.mkdtempSync(path.join(root, 'sandbox-'));
    const wacz = path.join(sandbox, 'pkg.wacz');
    fs.writeFileSync(wacz, craftZip([...entries, { name: 'datapackage.json', data: datapackage }]));
    const report = await importFiles(path.join(sandbox, 'archive'), [wacz], { copy: false });
    const written = (fs.readdirSync(sandbox, { recursive: true }) as string[]).map((p) => p.split(path.sep).join('/')).sort();
    return { codes: report.problems.map((p) => p.code), written, sandbox };
  }

  const outside = (written: string[]) => written.filter((p) => p !== 'pkg.wacz' && p !== 'archive' && !p.startsWith('archive/'));

  it.each([
    ['a ".." entry under archive/', { name: 'archive/../../../evil.warc', data: warc, deflate: true }],
    ['an absolute entry', { name: `${os.tmpdir()}/trove-evil-${process.pid}.warc`, data: warc, deflate: true }],
    ['a drive-letter entry', { name: 'C:/evil.warc', data: warc, deflate: true }],
    ['a backslash entry', { name: 'archive\\..\\..\\evil.warc', data: warc, deflate: true }],
    ['a benign name renamed to ".." by an Info-ZIP Unicode Path field', { name: 'archive/fine.warc', unicodePath: '../../evil.warc', data: warc, deflate: true }],
  ] as [string, CraftedEntry][])('refuses %s whole (WACZ_UNSAFE_PATH) and writes nothing outside', async (_what, entry) => {
    const r = await importInSandbox([entry]);
    expect(r.codes).toEqual(['WACZ_UNSAFE_PATH']);
    expect(outside(r.written)).toEqual([]);
    expect(r.written.filter((p) => p.includes('evil'))).toEqual([]);
    expect(fs.existsSync(path.join(os.tmpdir(), `trove-evil-${process.pid}.warc`))).toBe(false);
  });

  it('refuses a symlink entry, and so the entry written through it', async () => {
    const r = await importInSandbox([
      { name: 'archive/link', data: Buffer.from('../../..'), mode: 0o120777 },
      { name: 'archive/link/evil.warc', data: warc, deflate: true },
    ]);
    expect(r.codes).toEqual(['WACZ_UNSAFE_PATH']);
    expect(outside(r.written)).toEqual([]);
    expect(r.written.filter((p) => p.includes('link') || p.includes('evil'))).toEqual([]);
  });

  it('a local header naming "../evil.warc" under a benign central name writes only inside the archive', async () => {
    const r = await importInSandbox([{ name: 'archive/fine.warc', localName: '../../../evil.warc', data: warc, deflate: true }]);
    expect(outside(r.written)).toEqual([]);
    expect(r.written.filter((p) => p.includes('evil'))).toEqual([]);
    expect(r.written).toContain('archive/warcs/pkg/archive/fine.warc');
  });

  it('a truncated package is a typed error, not a crash', async () => {
    const good = craftZip([{ name: 'archive/a.warc', data: warc, deflate: true }, { name: 'datapackage.json', data: datapackage }]);
    for (const cut of [10, 100, good.length - 30, good.length - 1]) {
      const sandbox = fs.mkdtempSync(path.join(root, 'cut-'));
      const wacz = path.join(sandbox, 'pkg.wacz');
      fs.writeFileSync(wacz, good.subarray(0, cut));
      const report = await importFiles(path.join(sandbox, 'archive'), [wacz], { copy: false });
      expect(report.problems.length, `cut at ${cut}`).toBeGreaterThan(0);
      expect(report.problems[0]!.code).toMatch(/^WACZ_|^WARC_/);
    }
  });
});

/**
 * A raw deflate stream that inflates to `mib` MiB of zeros, built from one sync-flushed segment
 * repeated (each segment refers only to itself, so copies chain), ending with a final empty
 * block: 4 GiB costs about 4 MB and a few milliseconds to build, not a 4 GiB deflate.
 */
function zeroBomb(mib: number): Buffer {
  const segment = zlib.deflateRawSync(Buffer.alloc(1 << 20), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const end = zlib.deflateRawSync(Buffer.alloc(0));
  return Buffer.concat([...Array.from({ length: mib }, () => segment), end]);
}

describe('bounded WACZ imports', () => {
  const GiB4 = 4 * 1024 * 1024 * 1024;
  const datapackage = Buffer.from(JSON.stringify({ profile: 'data-package', wacz_version: '1.1.1', resources: [] }));

  /** Import one crafted package with and without --copy; what was reported, left behind, and how long it took. */
  async function importBomb(entry: CraftedEntry): Promise<{ codes: string[]; left: string[]; ms: number; fileSize: number }[]> {
    const out = [];
    for (const copy of [false, true]) {
      const sandbox = fs.mkdtempSync(path.join(root, 'bomb-'));
      const wacz = path.join(sandbox, 'bomb.wacz');
      fs.writeFileSync(wacz, craftZip([entry, { name: 'datapackage.json', data: datapackage }]));
      const archive = path.join(sandbox, 'archive');
      const t0 = performance.now();
      const report = await importFiles(archive, [wacz], { copy });
      const ms = performance.now() - t0;
      // Every file left under warcs/ (the archive's database files are expected).
      const warcs = path.join(archive, 'warcs');
      const left = fs.existsSync(warcs) ? (fs.readdirSync(warcs, { recursive: true }) as string[]) : [];
      const tmp = fs.readdirSync(archive).filter((f) => f.endsWith('.tmp') || f.endsWith('.part'));
      out.push({ codes: report.problems.map((p) => p.code), left: [...left, ...tmp], ms, fileSize: fs.statSync(wacz).size });
    }
    return out;
  }

  it('a 4 MB package whose entry inflates to 4 GiB (declared honestly, Zip64) is refused before a byte is written', async () => {
    const raw = zeroBomb(4096);
    for (const r of await importBomb({ name: 'archive/bomb.warc', data: Buffer.alloc(0), raw, deflate: true, declaredSize: GiB4, crc: 0 })) {
      expect(r.fileSize).toBeLessThan(5 << 20);
      expect(r.codes).toEqual(['WACZ_ENTRY_TOO_LARGE']);
      expect(r.left).toEqual([]);
      expect(r.ms).toBeLessThan(1000);
    }
  });

  it('the same bomb declaring a small size is stopped as soon as it inflates past it', async () => {
    const raw = zeroBomb(4096);
    for (const r of await importBomb({ name: 'archive/bomb.warc', data: Buffer.alloc(0), raw, deflate: true, declaredSize: 500_000, crc: 0 })) {
      expect(r.codes).toEqual(['WACZ_ENTRY_SIZE_MISMATCH']);
      expect(r.left).toEqual([]);
      expect(r.ms).toBeLessThan(1000);
    }
  });

  it('an entry declaring 4 GB in a 1.9 MB file: a typed error, no partial WARC', async () => {
    const noise = crypto.randomBytes(1_900_000);
    // Declared 4 GB inflated from 1.9 MB: over the ratio cap.
    for (const r of await importBomb({ name: 'archive/big.warc', data: noise, deflate: true, declaredSize: 4_000_000_000 })) {
      expect(r.codes).toEqual(['WACZ_ENTRY_TOO_LARGE']);
      expect(r.left).toEqual([]);
    }
    // Declared 4 GB of compressed data in a 1.9 MB file: past the end of the file.
    for (const r of await importBomb({ name: 'archive/big.warc', data: noise, deflate: true, declaredSize: 4_000_000_000, declaredCompressedSize: 4_000_000_000 })) {
      expect(r.codes).toEqual(['WACZ_ENTRY_TRUNCATED']);
      expect(r.left).toEqual([]);
    }
    // Stored, declaring 4 GB: past the end of the file too.
    for (const r of await importBomb({ name: 'archive/big.warc', data: noise, declaredSize: 4_000_000_000, declaredCompressedSize: 4_000_000_000 })) {
      expect(r.codes).toEqual(['WACZ_ENTRY_TRUNCATED']);
      expect(r.left).toEqual([]);
    }
    // Within the ratio, but the data ends short of the declared size: stopped at the end, the part removed.
    for (const r of await importBomb({ name: 'archive/big.warc', data: noise, deflate: true, declaredSize: 3_000_000 })) {
      expect(r.codes).toEqual(['WACZ_ENTRY_SIZE_MISMATCH']);
      expect(r.left).toEqual([]);
    }
    // The right size with a wrong CRC-32.
    for (const r of await importBomb({ name: 'archive/big.warc', data: noise, deflate: true, crc: 1234 })) {
      expect(r.codes).toEqual(['WACZ_ENTRY_CRC_MISMATCH']);
      expect(r.left).toEqual([]);
    }
  });

  it('trove import prints the refusal as a typed problem, never "unexpected error", and exits 1', async () => {
    const sandbox = fs.mkdtempSync(path.join(root, 'bomb-cli-'));
    const wacz = path.join(sandbox, 'bomb.wacz');
    fs.writeFileSync(wacz, craftZip([{ name: 'archive/bomb.warc', data: Buffer.alloc(0), raw: zeroBomb(64), deflate: true, declaredSize: 64 << 20, crc: 0 }, { name: 'datapackage.json', data: datapackage }]));
    let err = '';
    const program = new Command().exitOverride();
    registerImportCommand(program, { stdout: { write: () => true }, stderr: { write: (c: string) => ((err += c), true), isTTY: false } });
    const before = process.exitCode;
    await program.parseAsync(['import', '--archive', path.join(sandbox, 'archive'), '--copy', wacz], { from: 'user' });
    const code = process.exitCode;
    process.exitCode = before;
    expect(code).toBe(1);
    expect(err).toMatch(/bomb\.warc: WACZ_ENTRY_TOO_LARGE: /);
    expect(err).not.toMatch(/unexpected error|\n\s+at /);
    expect(fs.readdirSync(path.join(sandbox, 'archive', 'warcs'), { recursive: true })).toEqual([]);
  });
});

describe('damaged crawl configuration', () => {
  function parse(args: string[]): Record<string, unknown> {
    const cmd = addCrawlOptions(new Command().exitOverride());
    cmd.parse(args, { from: 'user' });
    return cmd.opts();
  }

  it('a seeds file with a bad line: SETTINGS_INVALID naming the line', () => {
    const seeds = file(`# seeds\nhttps://example.org/\n\nhttps://example.org/b\nftp://example.org/x\n`, '.txt');
    const err = (() => {
      try {
        settingsFromOptions(parse(['--seeds-file', seeds]), []);
      } catch (e) {
        return e;
      }
    })();
    expect(isTroveError(err, 'SETTINGS_INVALID')).toBe(true);
    expect((err as TroveError).details).toMatchObject({ line: 5, file: seeds });
    const binary = file(Buffer.from([0x00, 0xff, 0xfe, 0x0a, 0x41]), '.txt');
    expect(() => settingsFromOptions(parse(['--seeds-file', binary]), [])).toThrow(expect.objectContaining({ code: 'SETTINGS_INVALID', details: expect.objectContaining({ line: 1 }) }));
  });

  it('a missing seeds or robots file: SETTINGS_INVALID', async () => {
    expect(() => settingsFromOptions(parse(['--seeds-file', path.join(root, 'nope.txt')]), [])).toThrow(expect.objectContaining({ code: 'SETTINGS_INVALID' }));
    const err = await startCrawl({ dir: path.join(root, 'robots-missing'), settings: { seeds: ['http://127.0.0.1:9/'], robots: 'custom', robotsFile: path.join(root, 'nope-robots.txt') } }).catch((e: unknown) => e);
    expect(isTroveError(err, 'SETTINGS_INVALID')).toBe(true);
  });

  async function crawlDir(): Promise<string> {
    const dir = fs.mkdtempSync(path.join(root, 'crawl-'));
    const crawl = await startCrawl({ dir, settings: { ...FAST, seeds: [`${hostile.origin}/ok`], maxHops: 0 } });
    await crawl.finished();
    return dir;
  }

  it('a crawl database that is garbage, or cut short: DB_NOT_A_DATABASE on resume', async () => {
    const garbage = await crawlDir();
    fs.writeFileSync(path.join(garbage, 'crawl.sqlite'), Buffer.alloc(64 * 1024, 'not sqlite '));
    const e1 = await resumeCrawl(garbage).catch((e: unknown) => e);
    expect(isTroveError(e1, 'DB_NOT_A_DATABASE'), String(e1)).toBe(true);

    const cut = await crawlDir();
    const db = path.join(cut, 'crawl.sqlite');
    fs.truncateSync(db, 1000); // inside the first page
    const e2 = await resumeCrawl(cut).catch((e: unknown) => e);
    expect(isTroveError(e2), String(e2)).toBe(true);
    expect((e2 as TroveError).code).toMatch(/^DB_/);
  });

  it('stored settings that are not JSON, or of the wrong types: typed errors naming the setting', async () => {
    const notJson = await crawlDir();
    patchSettings(notJson, '{"seeds": [');
    const e1 = await resumeCrawl(notJson).catch((e: unknown) => e);
    expect(isTroveError(e1, 'DB_META_CORRUPT')).toBe(true);
    expect((e1 as TroveError).details).toMatchObject({ key: 'settings' });

    const wrongType = await crawlDir();
    patchSettings(wrongType, (s) => ({ ...s, maxBodyBytes: 'lots' }));
    const e2 = await resumeCrawl(wrongType).catch((e: unknown) => e);
    expect(isTroveError(e2, 'SETTINGS_INVALID')).toBe(true);
    expect((e2 as TroveError).details).toMatchObject({ setting: 'maxBodyBytes' });
  });
});

function patchSettings(dir: string, change: string | ((s: Record<string, unknown>) => Record<string, unknown>)): void {
  const db = new Database(path.join(dir, 'crawl.sqlite'));
  try {
    const row = db.prepare("SELECT value FROM meta WHERE key = 'settings'").get() as { value: string };
    const value = typeof change === 'string' ? change : JSON.stringify(change(JSON.parse(row.value) as Record<string, unknown>));
    db.prepare("UPDATE meta SET value = ? WHERE key = 'settings'").run(value);
  } finally {
    db.close();
  }
}
