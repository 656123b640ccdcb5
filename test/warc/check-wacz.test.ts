/**
 * `trove check` on WACZ packages: the corpus packages get the verdict the corpus README states
 * (py-wacz `wacz validate`, with `--verify-auth` for the signed ones), a WACZ Trove exports from a
 * real crawl is checked end to end, and a package built here, read back as a sound ZIP by
 * Python's zipfile, is broken one way at a time so that each defect gets its typed WACZ_* code
 * with the entry's name.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexFile } from '../../core/archive/cdxj-index.ts';
import { formatCdxj } from '../../core/archive/cdxj.ts';
import { checkWaczFile } from '../../core/archive/wacz-check.ts';
import { openWacz } from '../../core/archive/wacz-read.ts';
import { signHash } from '../../core/archive/wacz-sign.ts';
import type { CheckResult } from '../../core/warc/check-warc.ts';
import { checkWarcFile } from '../../core/warc/check-warc.ts';
import { crawlFixture } from '../export/export-fixture.ts';
import type { CrawledArchive } from '../export/export-fixture.ts';
import { corpusPath, repoRoot } from '../helpers/corpus.ts';
import { craftZip } from '../hostile/zip-craft.ts';
import type { CraftedEntry } from '../hostile/zip-craft.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-check-wacz-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

const codes = (r: CheckResult, level?: 'error' | 'warning') => r.problems.filter((p) => !level || p.level === level).map((p) => p.code);
const where = (r: CheckResult, code: string) => r.problems.filter((p) => p.code === code).map((p) => p.file.slice(p.file.indexOf('!/') + 2));

describe('corpus WACZ packages get the verdict the corpus README states', () => {
  it('valid_example_1.wacz (WACZ 1.0.0, ZipNum index): valid, no problem at all', async () => {
    const r = await checkWaczFile(corpusPath('wacz', 'valid_example_1.wacz'));
    expect(r.problems).toEqual([]);
    expect(r.valid).toBe(true);
    expect(r.records).toBe(4);
  });

  it('valid_signed_example_1.wacz: valid, its domain signature verifies up to a trusted root', async () => {
    const r = await checkWaczFile(corpusPath('wacz', 'valid_signed_example_1.wacz'));
    expect(r.problems).toEqual([]);
    expect(r.valid).toBe(true);
  });

  it('invalid_signed_example_1.wacz: invalid, its certificate chain ends at a staging root', async () => {
    const r = await checkWaczFile(corpusPath('wacz', 'invalid_signed_example_1.wacz'));
    expect(r.valid).toBe(false);
    expect(codes(r, 'error')).toEqual(['WACZ_SIGNATURE_UNTRUSTED']);
    expect(where(r, 'WACZ_SIGNATURE_UNTRUSTED')).toEqual(['datapackage-digest.json']);
  });

  it('invalid_example_1.wacz: invalid, every defect py-wacz finds and more, each naming its entry', async () => {
    const r = await checkWaczFile(corpusPath('wacz', 'invalid_example_1.wacz'));
    expect(r.valid).toBe(false);
    expect(new Set(codes(r, 'error'))).toEqual(
      new Set(['WACZ_NO_VERSION', 'WACZ_RESOURCE_MISSING', 'WACZ_ENTRY_NOT_LISTED', 'WACZ_NO_WARCS', 'WACZ_NO_PAGES', 'WACZ_NO_INDEX']),
    );
    expect(where(r, 'WACZ_RESOURCE_MISSING')).toEqual(['data/indexes/index.cdx.gz']);
    expect(where(r, 'WACZ_ENTRY_NOT_LISTED')).toEqual(['data/archive/test.txt']);
  });
});

describe('a WACZ Trove exports from a real crawl', () => {
  let crawl: CrawledArchive;
  beforeAll(async () => {
    crawl = await crawlFixture('check-wacz');
  }, 60_000);
  afterAll(() => crawl?.cleanup());

  it('is checked end to end: every WARC inside, every index line against its record, the pages', { timeout: 60_000 }, async () => {
    const wacz = path.join(crawl.out, 'crawl.wacz');
    execFileSync(process.execPath, [path.join(repoRoot, 'bin', 'trove.js'), 'export', crawl.dir, '--wacz', wacz], { stdio: 'pipe' });
    const r = await checkWaczFile(wacz);
    // Not one problem of any kind: ZIP headers, resource names, index, pages, hashes, WARCs.
    expect(r.problems.map((p) => `${p.file} ${p.code} ${p.message}`)).toEqual([]);
    expect(r.valid).toBe(true);
    expect(r.records).toBeGreaterThan(10);
    // Trove digests chunked responses over the de-chunked entity (WARC 1.1 §6.2).
    expect(r.chunkedDigests.entity).toBeGreaterThan(0);
    expect(r.chunkedDigests.transfer).toBe(0);
    // The same counts as for the crawl's own WARC files.
    const warcs = fs.readdirSync(path.join(crawl.dir, 'warcs')).filter((f) => /\.warc(\.gz)?$/.test(f));
    let entity = 0;
    for (const f of warcs) entity += (await checkWarcFile(path.join(crawl.dir, 'warcs', f))).chunkedDigests.entity;
    expect(entity).toBe(r.chunkedDigests.entity);
  });
});

/** A sound WACZ 1.1.1 built here from a corpus WARC, with hooks to break it. */
interface Parts {
  warcName: string;
  warc: Buffer;
  index: string[];
  pages: string[];
  /** Change datapackage.json before it is hashed into the digest file. */
  datapackage?: (dp: { resources: Record<string, unknown>[] } & Record<string, unknown>) => void;
  digest?: (d: Record<string, unknown>, dpBytes: Buffer) => void;
  entries?: (entries: CraftedEntry[]) => void;
  zipnum?: boolean;
  /** Write with yazl, streaming the deflated entries (sizes and CRC in data descriptors, APPNOTE 4.3.9). */
  yazl?: (zip: Buffer) => Buffer;
}

async function parts(): Promise<Parts> {
  const warcName = 'example.warc.gz';
  const warc = fs.readFileSync(corpusPath('warc', 'warcio', 'example.warc.gz'));
  const tmp = path.join(dir, `src-${++n}.warc.gz`);
  fs.writeFileSync(tmp, warc);
  const index: string[] = [];
  for await (const e of indexFile(tmp, { filename: warcName })) index.push(formatCdxj(e));
  index.sort();
  const pages = [JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages' }), JSON.stringify({ id: 'p1', url: 'http://example.com/', ts: '2017-03-06T04:02:06Z', title: 'Example' })];
  return { warcName, warc, index, pages };
}

function build(p: Parts): string {
  const files: [string, Buffer][] = [[`archive/${p.warcName}`, p.warc]];
  if (p.zipnum) {
    const gz = zlib.gzipSync(p.index.join('\n') + '\n');
    const first = p.index[0]!.split(' ').slice(0, 2).join(' ');
    const idx = ['!meta 0 {"format":"cdxj-gzip-1.0","filename":"index.cdx.gz"}', `${first} ${JSON.stringify({ offset: 0, length: gz.length, digest: `sha256:${sha256(gz)}` })}`];
    files.push(['indexes/index.cdx.gz', gz], ['indexes/index.idx', Buffer.from(idx.join('\n') + '\n')]);
  } else files.push(['indexes/index.cdxj', Buffer.from(p.index.join('\n') + '\n')]);
  files.push(['pages/pages.jsonl', Buffer.from(p.pages.join('\n') + '\n')]);
  const dp = {
    profile: 'data-package',
    resources: files.map(([name, data]) => ({ name: path.posix.basename(name).toLowerCase(), path: name, hash: `sha256:${sha256(data)}`, bytes: data.length })),
    wacz_version: '1.1.1',
    created: '2024-01-02T03:04:05Z',
    software: 'trove test',
  };
  p.datapackage?.(dp);
  const dpBytes = Buffer.from(JSON.stringify(dp, null, 2));
  const digest: Record<string, unknown> = { path: 'datapackage.json', hash: `sha256:${sha256(dpBytes)}` };
  p.digest?.(digest, dpBytes);
  const entries: CraftedEntry[] = [
    ...files.map(([name, data]) => ({ name, data, deflate: name.endsWith('.jsonl') || name.endsWith('.cdxj') || name.endsWith('.idx') })),
    { name: 'datapackage.json', data: dpBytes, deflate: true },
    { name: 'datapackage-digest.json', data: Buffer.from(JSON.stringify(digest)), deflate: true },
  ];
  p.entries?.(entries);
  const file = path.join(dir, `built-${++n}.wacz`);
  fs.writeFileSync(file, craftZip(entries));
  return file;
}

async function buildWithYazl(p: Parts): Promise<string> {
  const crafted = build(p);
  const zip = new yazl.ZipFile();
  const src = await openWacz(crafted);
  for (const e of src.entries) {
    const data: Buffer[] = [];
    for await (const c of await src.openEntry(e)) data.push(c as Buffer);
    if (e.compressionMethod === 8) zip.addReadStream(Readable.from([Buffer.concat(data)]), e.name, { compress: true });
    else zip.addBuffer(Buffer.concat(data), e.name, { compress: false });
  }
  src.close();
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  const file = path.join(dir, `yazl-${++n}.wacz`);
  fs.writeFileSync(file, p.yazl!(Buffer.concat(chunks)));
  return file;
}

const sha256 = (b: Buffer | string) => crypto.createHash('sha256').update(b).digest('hex');

describe('a WACZ built here, broken one way at a time', () => {
  it('as built (plain CDXJ and ZipNum index) it is sound: Python zipfile tests it clean and trove check finds nothing', async () => {
    for (const zipnum of [false, true]) {
      const file = build({ ...(await parts()), zipnum });
      // An independent ZIP reader: Python's zipfile reads every entry and checks its CRC.
      expect(execFileSync('python3', ['-m', 'zipfile', '-t', file]).toString()).toContain('Done testing');
      const r = await checkWaczFile(file);
      expect(r.problems.map((p) => `${p.file} ${p.code} ${p.message}`)).toEqual([]);
      expect(r.records).toBe(6);
    }
  });

  it('a local header with a 20-byte Zip64 extra field the central directory lacks (issue 12): WACZ_ZIP_EXTRA_MISMATCH on that entry', async () => {
    const zip64 = Buffer.alloc(20);
    zip64.writeUInt16LE(0x0001, 0);
    zip64.writeUInt16LE(16, 2);
    const file = build({ ...(await parts()), entries: (es) => void (es.find((e) => e.name === 'pages/pages.jsonl')!.localExtra = zip64) });
    const r = await checkWaczFile(file);
    expect(codes(r)).toEqual(['WACZ_ZIP_EXTRA_MISMATCH']);
    expect(where(r, 'WACZ_ZIP_EXTRA_MISMATCH')).toEqual(['pages/pages.jsonl']);
    expect(r.problems[0]!.message).toContain('20 bytes in the local header, 0 in the central directory');
  });

  it('streamed entries with data descriptors (yazl) are read right, and a descriptor that disagrees is WACZ_ZIP_BAD_DESCRIPTOR', async () => {
    const sound = await buildWithYazl({ ...(await parts()), yazl: (b) => b });
    expect(execFileSync('python3', ['-m', 'zipfile', '-t', sound]).toString()).toContain('Done testing');
    expect((await checkWaczFile(sound)).problems).toEqual([]);
    const broken = await buildWithYazl({
      ...(await parts()),
      yazl: (b) => {
        const at = b.indexOf(Buffer.from([0x50, 0x4b, 0x07, 0x08])); // the first data descriptor
        expect(at).toBeGreaterThan(0);
        const out = Buffer.from(b);
        out.writeUInt32LE(0xdeadbeef, at + 4);
        return out;
      },
    });
    const r = await checkWaczFile(broken);
    expect(codes(r)).toEqual(['WACZ_ZIP_BAD_DESCRIPTOR']);
  });

  it('ZIP defects: another name in the local header, a duplicate entry, a wrong CRC-32', async () => {
    const renamed = await checkWaczFile(build({ ...(await parts()), entries: (es) => void (es.find((e) => e.name === 'indexes/index.cdxj')!.localName = 'indexes/index.cdxk') }));
    expect(codes(renamed)).toEqual(['WACZ_ZIP_NAME_MISMATCH']);
    expect(where(renamed, 'WACZ_ZIP_NAME_MISMATCH')).toEqual(['indexes/index.cdxj']);

    const dup = await checkWaczFile(build({ ...(await parts()), entries: (es) => void es.push({ ...es.find((e) => e.name === 'pages/pages.jsonl')! }) }));
    expect(codes(dup)).toContain('WACZ_ZIP_DUPLICATE_ENTRY');
    expect(where(dup, 'WACZ_ZIP_DUPLICATE_ENTRY')).toEqual(['pages/pages.jsonl']);

    const crc = await checkWaczFile(build({ ...(await parts()), entries: (es) => void (es.find((e) => e.name === 'archive/example.warc.gz')!.crc = 0x12345678) }));
    // Said once (not again by the WARC check or by each index line into it).
    expect(codes(crc, 'error')).toEqual(['WACZ_ENTRY_CRC_MISMATCH']);
    expect(where(crc, 'WACZ_ENTRY_CRC_MISMATCH')).toEqual(['archive/example.warc.gz']);
  });

  it('a STORED WARC is read in place, a DEFLATED one from a copy: same verdict; a corrupt STORED WARC the hash pass skips still fails its CRC-32', async () => {
    const deflated = await checkWaczFile(build({ ...(await parts()), entries: (es) => void (es.find((e) => e.name === 'archive/example.warc.gz')!.deflate = true) }));
    expect(codes(deflated)).toEqual(['WACZ_ENTRY_COMPRESSED']);
    expect(deflated.records).toBe(6);

    // Not listed in datapackage.json, so not hashed: its own CRC pass finds the flipped byte.
    const corrupt = await checkWaczFile(
      build({
        ...(await parts()),
        datapackage: (dp) => void (dp.resources = dp.resources.filter((r) => r.path !== 'archive/example.warc.gz')),
        entries: (es) => {
          const warc = es.find((e) => e.name === 'archive/example.warc.gz')!;
          warc.crc = zlib.crc32(warc.data);
          warc.data = Buffer.from(warc.data);
          warc.data[100] ^= 0xff;
        },
      }),
    );
    expect(codes(corrupt, 'error').sort()).toEqual(['WACZ_ENTRY_CRC_MISMATCH', 'WACZ_ENTRY_NOT_LISTED']);
    expect(where(corrupt, 'WACZ_ENTRY_CRC_MISMATCH')).toEqual(['archive/example.warc.gz']);
  });

  it('datapackage.json: an upper-case resource name, a wrong hash, a wrong size, a file left out, no profile', async () => {
    const p = await parts();
    const r = await checkWaczFile(
      build({
        ...p,
        datapackage: (dp) => {
          delete dp.profile;
          dp.resources[0]!.name = 'Example.WARC.gz';
          dp.resources[1]!.hash = `sha256:${'0'.repeat(64)}`;
          dp.resources[2]!.bytes = 1;
        },
        entries: (es) => void es.push({ name: 'extra/notes.txt', data: Buffer.from('not listed') }),
      }),
    );
    expect(codes(r, 'error').sort()).toEqual(['WACZ_BAD_DATAPACKAGE', 'WACZ_BAD_RESOURCE_NAME', 'WACZ_ENTRY_NOT_LISTED', 'WACZ_HASH_MISMATCH', 'WACZ_SIZE_MISMATCH']);
    expect(where(r, 'WACZ_HASH_MISMATCH')).toEqual(['indexes/index.cdxj']);
    expect(where(r, 'WACZ_SIZE_MISMATCH')).toEqual(['pages/pages.jsonl']);
    expect(where(r, 'WACZ_ENTRY_NOT_LISTED')).toEqual(['extra/notes.txt']);
  });

  it('datapackage-digest.json: a wrong hash, then signatures that hold and one that does not', async () => {
    const wrong = await checkWaczFile(build({ ...(await parts()), digest: (d) => void (d.hash = `sha256:${'1'.repeat(64)}`) }));
    expect(codes(wrong)).toEqual(['WACZ_DIGEST_MISMATCH']);

    const key = crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
    const sign = (d: Record<string, unknown>) => void (d.signedData = signHash(String(d.hash), key, '2024-01-02T03:04:05Z', 'trove test'));
    expect((await checkWaczFile(build({ ...(await parts()), digest: sign }))).problems).toEqual([]);

    const other = crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const forged = await checkWaczFile(build({ ...(await parts()), digest: (d) => (sign(d), void ((d.signedData as { publicKey: string }).publicKey = other)) }));
    expect(codes(forged)).toEqual(['WACZ_BAD_SIGNATURE']);
    expect(where(forged, 'WACZ_BAD_SIGNATURE')).toEqual(['datapackage-digest.json']);
  });

  it('index lines that do not point at their record: offset, length, digest, filename, order', async () => {
    const p = await parts();
    const edit = (i: number, f: (j: Record<string, string>) => void) => {
      const [key, ts, ...rest] = p.index[i]!.split(' ');
      const j = JSON.parse(rest.join(' ')) as Record<string, string>;
      f(j);
      p.index[i] = `${key} ${ts} ${JSON.stringify(j)}`;
    };
    expect(p.index).toHaveLength(2); // the response and the revisit
    p.index.push(p.index[1]!);
    edit(0, (j) => (j.offset = String(Number(j.offset) + 1)));
    edit(1, (j) => (j.length = String(Number(j.length) + 100)));
    edit(2, (j) => (j.digest = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
    p.index.push('zzz,example)/ 20170306040206 {"url":"http://zzz.example/","length":"10","offset":"0","filename":"missing.warc.gz"}');
    p.index.push('aaa,example)/ 20170306040206 {"url":"http://aaa.example/","length":"10","offset":"0","filename":"example.warc.gz"}');
    const r = await checkWaczFile(build(p));
    expect(codes(r, 'error').sort()).toEqual(['WACZ_INDEX_BAD_DIGEST', 'WACZ_INDEX_BAD_FILENAME', 'WACZ_INDEX_BAD_LENGTH', 'WACZ_INDEX_BAD_OFFSET', 'WACZ_INDEX_BAD_OFFSET', 'WACZ_INDEX_UNSORTED']);
    expect(new Set(where(r, 'WACZ_INDEX_BAD_OFFSET'))).toEqual(new Set(['indexes/index.cdxj']));
    expect(codes(r, 'warning')).toEqual(['WACZ_RECORDS_NOT_INDEXED']);
  });

  it('a ZipNum block whose digest or first key is wrong', async () => {
    const p = { ...(await parts()), zipnum: true };
    const r = await checkWaczFile(
      build({
        ...p,
        entries: (es) => {
          const idx = es.find((e) => e.name === 'indexes/index.idx')!;
          idx.data = Buffer.from(idx.data.toString().replace(/sha256:[0-9a-f]+/, `sha256:${'2'.repeat(64)}`).replace('com,example)/ ', 'com,example)/x '));
        },
        datapackage: () => {},
      }),
    );
    const errors = codes(r, 'error');
    expect(errors).toContain('WACZ_ZIPNUM_BAD_DIGEST');
    expect(errors).toContain('WACZ_ZIPNUM_BAD_KEY');
    expect(where(r, 'WACZ_ZIPNUM_BAD_DIGEST')).toEqual(['indexes/index.idx']);
  });

  it('pages.jsonl without its header line, and a page with no url or no ts', async () => {
    const p = await parts();
    p.pages = [JSON.stringify({ url: 'http://example.com/', ts: '2017-03-06T04:02:06Z' }), JSON.stringify({ url: 'not a url', ts: '2017' }), JSON.stringify({ url: 'http://example.com/' })];
    const r = await checkWaczFile(build(p));
    expect(codes(r, 'error')).toEqual(['WACZ_PAGES_BAD_HEADER', 'WACZ_PAGES_BAD_HEADER', 'WACZ_PAGES_BAD_LINE', 'WACZ_PAGES_BAD_LINE']);
    expect(new Set(where(r, 'WACZ_PAGES_BAD_LINE'))).toEqual(new Set(['pages/pages.jsonl']));
  });

  it('a damaged WARC inside is checked as trove check checks WARC files, named by its entry', async () => {
    const p = await parts();
    const warc = Buffer.from(p.warc);
    // Flip a byte inside the response's gzip member (its offset is in the index).
    warc[800] = warc[800]! ^ 0xff;
    p.warc = warc;
    const r = await checkWaczFile(build(p));
    expect(r.valid).toBe(false);
    expect(r.problems.some((x) => x.file.endsWith('!/archive/example.warc.gz') && x.code.startsWith('WARC_'))).toBe(true);
  });
});
