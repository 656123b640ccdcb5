import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { indexFile } from '../../core/archive/cdxj-index.ts';
import { formatCdxj, sortCdxjLines } from '../../core/archive/cdxj.ts';
import { registerExportCommand } from '../../core/cli/export-command.ts';
import { loadSigningKey, MAKE_SIGNING_KEY_COMMAND, signingKeyWarning } from '../../core/archive/wacz-sign.ts';
import { openArchive } from '../../core/archive/archive-dir.ts';
import { exportCdxj } from '../../core/export/export-cdxj.ts';
import { crawlFixture } from './export-fixture.ts';
import { readZipEverywhere } from './independent-zip-readers.ts';
import type { CrawledArchive } from './export-fixture.ts';
import { readWaczIndexLines, parseCdxjLine } from './wacz-index-reader.ts';

async function run(args: string[]): Promise<{ code: number; out: string; err: string; threw: unknown }> {
  let out = '';
  let err = '';
  const program = new Command().exitOverride().configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (err += s) });
  registerExportCommand(program, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s), isTTY: false } });
  process.exitCode = undefined;
  let threw: unknown = null;
  try {
    await program.parseAsync(['export', ...args], { from: 'user' });
  } catch (e) {
    threw = e;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, out, err, threw };
}

describe('trove export (CLI, in process)', () => {
  let c: CrawledArchive;
  const o = (name: string) => path.join(c.out, name);

  beforeAll(async () => {
    c = await crawlFixture('cli');
  }, 60_000);
  afterAll(async () => {
    await c?.cleanup();
  });
  afterEach(() => {
    process.exitCode = undefined;
  });

  it('runs every export in one go, one summary line each, exit 0', async () => {
    const r = await run([
      c.dir,
      '--wacz', o('all.wacz'),
      '--cdxj', o('all.cdxj'),
      '--warc', o('images.warc.gz'), '--mime', 'image/',
      '--mirror', o('mirror'),
      '--report', o('reports'),
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines.map((l) => l.split(':')[0])).toEqual(['wacz', 'cdxj', 'warc', 'mirror', 'report']);
    expect(lines[0]).toMatch(/captures \(ZipNum index\), \d+ pages/);
    for (const f of ['all.wacz', 'all.cdxj', 'images.warc.gz', 'mirror/index.html', 'reports/hosts-report.txt']) expect(fs.existsSync(o(f)), f).toBe(true);

    // The standalone CDXJ holds the WACZ's index lines, and its offsets land on records in warcs/.
    const cdxj = fs.readFileSync(o('all.cdxj'), 'utf8').trimEnd().split('\n');
    expect(cdxj).toEqual(readWaczIndexLines(await readZipEverywhere(o('all.wacz'))).lines);
    // Built from the capture index, it says what `trove index` (reading the WARCs) says.
    const fromFiles: string[] = [];
    for (const f of fs.readdirSync(path.join(c.dir, 'warcs'))) for await (const e of indexFile(path.join(c.dir, 'warcs', f))) fromFiles.push(formatCdxj(e));
    expect(cdxj).toEqual(sortCdxjLines(fromFiles));
    for (const line of cdxj) {
      const { json } = parseCdxjLine(line);
      const fd = fs.openSync(path.join(c.dir, 'warcs', json.filename!), 'r');
      const b = Buffer.alloc(Number(json.length));
      fs.readSync(fd, b, 0, b.length, Number(json.offset));
      fs.closeSync(fd);
      const rec = await new WARCParser([b]).parse();
      expect(rec?.warcTargetURI).toBe(json.url);
    }
  });

  it('gives the same CDXJ when the sort spills to disk (exportCdxj, tiny runs)', async () => {
    const archive = openArchive(c.dir, { create: false });
    try {
      const r = await exportCdxj(archive, o('spilled.cdxj'), { maxRunBytes: 1500, tmpDir: o('spill-runs') });
      expect(fs.readFileSync(o('spilled.cdxj'), 'utf8')).toBe(fs.readFileSync(o('all.cdxj'), 'utf8'));
      expect(r.lines).toBeGreaterThan(30);
      expect(fs.existsSync(o('spill-runs'))).toBe(false);
    } finally {
      archive.close();
    }
  });

  it('signs with --sign-key (a P-384 key: no warning)', async () => {
    const key = o('key.pem');
    fs.writeFileSync(key, crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const r = await run([c.dir, '--wacz', o('signed.wacz'), '--sign-key', key, '--title', 'My crawl']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/, signed; WARC hashes: \d+ with the fixity recorded when written\n$/);
    expect(r.err).toBe('');
    const dp = JSON.parse((await readZipEverywhere(o('signed.wacz'))).find((e) => e.name === 'datapackage.json')!.data.toString('utf8'));
    expect(dp.title).toBe('My crawl');
  });

  it('signs with a P-256 --sign-key, warning in one stderr line that ReplayWeb.page will not verify it and how to make a P-384 key', async () => {
    const key = o('key-p256.pem');
    fs.writeFileSync(key, crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }));
    const r = await run([c.dir, '--wacz', o('signed-p256.wacz'), '--sign-key', key]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/, signed; WARC hashes: /);
    expect(r.err).toBe(`trove export: warning: --sign-key ${key}: ${signingKeyWarning(loadSigningKey(fs.readFileSync(key)))}\n`);
    expect(r.err).toContain('ECDSA P-256');
    expect(r.err).toContain('ReplayWeb.page verifies only P-384 keys');
    expect(r.err).toContain(`make a P-384 key with: ${MAKE_SIGNING_KEY_COMMAND}\n`);
  });

  it('--verify hashes every WARC again and says they match what was recorded', async () => {
    const r = await run([c.dir, '--wacz', o('verified.wacz'), '--verify']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/WARC hashes: \d+ hashed and matching it\n$/);
  });

  it('exit 2 for bad usage, before writing anything', async () => {
    const cases: string[][] = [
      [c.dir],
      [c.dir, '--cdxj', o('u1.cdxj'), '--host', 'example.org'],
      [c.dir, '--warc', o('u2.warc.gz'), '--from', '2024-01-01'],
      [c.dir, '--cdxj', o('u3.cdxj'), '--sign-key', o('key.pem')],
      [c.dir, '--cdxj', o('u6.cdxj'), '--verify'],
      [c.dir, '--wacz', o('u4.wacz'), '--sign-key', o('no-such-key.pem')],
      [path.join(c.out, 'not-an-archive'), '--cdxj', o('u5.cdxj')],
    ];
    for (const args of cases) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(/^trove export: /);
      expect(r.out).toBe('');
    }
    for (const f of ['u1.cdxj', 'u2.warc.gz', 'u3.cdxj', 'u4.wacz', 'u5.cdxj', 'u6.cdxj']) expect(fs.existsSync(o(f)), f).toBe(false);
    const unknown = await run([c.dir, '--no-such-flag']);
    expect(unknown.code).toBe(2);
    expect(unknown.threw).toBeTruthy();
  });

  it('exit 1 when an export fails; the other exports still run', async () => {
    const busy = o('busy');
    fs.mkdirSync(busy);
    fs.writeFileSync(path.join(busy, 'x'), 'x');
    const r = await run([c.dir, '--mirror', busy, '--cdxj', o('after.cdxj')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/mirror failed: .*EXPORT_TARGET_NOT_EMPTY/);
    expect(r.out).toMatch(/^cdxj: /);
    expect(fs.existsSync(o('after.cdxj'))).toBe(true);
  });
});
