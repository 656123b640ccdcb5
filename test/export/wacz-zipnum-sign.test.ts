import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { importFiles } from '../../core/archive/import-warc.ts';
import { openWacz, verifyWacz } from '../../core/archive/wacz-read.ts';
import { exportWacz } from '../../core/export/export-wacz.ts';
import { loadSigningKey, MAKE_SIGNING_KEY_COMMAND, signingKeyWarning, verifyAnonymousSignature } from '../../core/archive/wacz-sign.ts';
import { isTroveError } from '../../core/errors.ts';
import { corpusPath, repoRoot } from '../helpers/corpus.ts';
import { crawlFixture } from './export-fixture.ts';
import { readZip, readZipEverywhere } from './independent-zip-readers.ts';
import type { CrawledArchive } from './export-fixture.ts';
import type { ZipEntryRead } from './independent-zip-readers.ts';
import { parseCdxjLine, readWaczIndexLines } from './wacz-index-reader.ts';
import { pyWaczChecks } from './py-wacz-checks.ts';

async function recordAt(entries: ZipEntryRead[], line: string) {
  const { json } = parseCdxjLine(line);
  const warc = entries.find((e) => e.name === `archive/${json.filename}`)!;
  const bytes = warc.data.subarray(Number(json.offset), Number(json.offset) + Number(json.length));
  return { json, record: await new WARCParser([bytes]).parse() };
}

describe('reading the corpus WACZ packages (checks the format as other tools write it)', () => {
  for (const name of ['valid_example_1.wacz', 'valid_signed_example_1.wacz']) {
    it(`${name}: ZipNum index blocks, digests and record offsets`, async () => {
      const entries = await readZip(corpusPath('wacz', name));
      const { kind, lines, blocks } = readWaczIndexLines(entries);
      expect(kind).toBe('zipnum');
      expect(blocks.length).toBeGreaterThan(0);
      for (const line of lines) {
        const { json, record } = await recordAt(entries, line);
        expect(record?.warcTargetURI).toBe(json.url);
      }
      const pkg = await openWacz(corpusPath('wacz', name));
      try {
        expect((await verifyWacz(pkg)).every((c) => c.ok)).toBe(true);
      } finally {
        pkg.close();
      }
    });
  }

  it('valid_signed_example_1.wacz: the signature is ECDSA/SHA-256 over the hash string (DER, domain key)', async () => {
    const entries = await readZip(corpusPath('wacz', 'valid_signed_example_1.wacz'));
    const dp = entries.find((e) => e.name === 'datapackage.json')!.data;
    const digest = JSON.parse(entries.find((e) => e.name === 'datapackage-digest.json')!.data.toString('utf8'));
    const s = digest.signedData;
    expect(s.hash).toBe(`sha256:${crypto.createHash('sha256').update(dp).digest('hex')}`);
    const cert = new crypto.X509Certificate(s.domainCert.split('\n\n')[0]);
    expect(crypto.verify('sha256', Buffer.from(s.hash, 'ascii'), { key: cert.publicKey, dsaEncoding: 'der' }, Buffer.from(s.signature, 'base64'))).toBe(true);
  });
});

describe('WACZ export: ZipNum index and anonymous signing', () => {
  let c: CrawledArchive;
  let archive: Archive;

  beforeAll(async () => {
    c = await crawlFixture('zipnum');
    archive = openArchive(c.dir, { create: false });
  }, 60_000);

  afterAll(async () => {
    archive?.close();
    await c?.cleanup();
  });

  it('writes a ZipNum index in blocks of any size, holding the same lines, through a spilled sort', async () => {
    const oneBlockFile = path.join(c.out, 'one-block.wacz');
    const zipnumFile = path.join(c.out, 'zipnum.wacz');
    await exportWacz(archive, oneBlockFile);
    const runsDir = path.join(c.out, 'runs');
    const r = await exportWacz(archive, zipnumFile, { zipnumBlockLines: 7, maxRunBytes: 2000, tmpDir: runsDir });
    expect(r.index).toBe('zipnum');
    expect(fs.existsSync(runsDir)).toBe(false);
    const oneBlock = readWaczIndexLines(await readZipEverywhere(oneBlockFile));
    expect(oneBlock.kind).toBe('zipnum');
    expect(oneBlock.blocks.length).toBe(1);
    const entries = await readZipEverywhere(zipnumFile);
    const zipnum = readWaczIndexLines(entries);
    expect(zipnum.kind).toBe('zipnum');
    expect(zipnum.lines).toEqual(oneBlock.lines);
    expect(zipnum.blocks.length).toBe(Math.ceil(oneBlock.lines.length / 7));
    expect(entries.find((e) => e.name === 'indexes/index.cdx.gz')!.compressionMethod).toBe(0);
    const dp = JSON.parse(entries.find((e) => e.name === 'datapackage.json')!.data.toString('utf8'));
    expect(dp.resources.map((x: { path: string }) => x.path)).toEqual(expect.arrayContaining(['indexes/index.cdx.gz', 'indexes/index.idx']));
    expect(pyWaczChecks(zipnumFile)).toEqual({ problems: [], captures: oneBlock.lines.length });
    expect(pyWaczChecks(oneBlockFile).problems).toEqual([]);
    // Trove's importer accepts the package.
    const report = await importFiles(path.join(c.out, 'zipnum-import'), [zipnumFile]);
    expect(report.problems).toEqual([]);
  });

  for (const curve of ['P-256', 'P-384'] as const) {
    it(`signs datapackage-digest.json with a ${curve} key, verifiable with WebCrypto`, async () => {
      const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: curve });
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' });
      const file = path.join(c.out, `signed-${curve}.wacz`);
      const r = await exportWacz(archive, file, { signingKey: loadSigningKey(pem) });
      expect(r.signed).toBe(true);
      // ReplayWeb.page imports anonymous keys as P-384 only: a P-256 export says so (in the result the app shows).
      if (curve === 'P-384') expect(r.signingWarning).toBeUndefined();
      else expect(r.signingWarning).toBe(`the signing key is ECDSA P-256: the signature is valid, but ReplayWeb.page verifies only P-384 keys and will not show this WACZ as verified; make a P-384 key with: ${MAKE_SIGNING_KEY_COMMAND}`);
      const entries = await readZipEverywhere(file);
      expect(pyWaczChecks(file).problems).toEqual([]);
      const dp = entries.find((e) => e.name === 'datapackage.json')!;
      const digest = JSON.parse(entries.find((e) => e.name === 'datapackage-digest.json')!.data.toString('utf8'));
      const hash = `sha256:${crypto.createHash('sha256').update(dp.data).digest('hex')}`;
      expect(digest.hash).toBe(hash);
      expect(Object.keys(digest.signedData).sort()).toEqual(['created', 'hash', 'publicKey', 'signature', 'software']);
      expect(digest.signedData.hash).toBe(hash);
      expect(digest.signedData.created).toBe(JSON.parse(dp.data.toString('utf8')).created);
      expect(digest.signedData.publicKey).toBe(crypto.createPublicKey(privateKey).export({ type: 'spki', format: 'der' }).toString('base64'));
      expect(await verifyAnonymousSignature(digest.signedData)).toBe(true);
      expect(await verifyAnonymousSignature({ ...digest.signedData, hash: hash.replace(/.$/, (x) => (x === '0' ? '1' : '0')) })).toBe(false);
      const report = await importFiles(path.join(c.out, `signed-import-${curve}`), [file]);
      expect(report.problems).toEqual([]);
    });
  }

  it("the README's signing instructions make a P-384 key (OpenSSL), which signs without a warning", async () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const shown = readme.split('\n').filter((l) => l.startsWith('openssl '));
    expect(shown).toEqual([MAKE_SIGNING_KEY_COMMAND]);
    const dir = path.join(c.out, 'readme-key');
    fs.mkdirSync(dir);
    execFileSync('sh', ['-c', MAKE_SIGNING_KEY_COMMAND], { cwd: dir, stdio: 'pipe' });
    const key = loadSigningKey(fs.readFileSync(path.join(dir, 'trove-sign-key.pem')));
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('secp384r1');
    expect(signingKeyWarning(key)).toBeUndefined();
    const r = await exportWacz(archive, path.join(dir, 'signed.wacz'), { signingKey: key });
    expect(r.signed).toBe(true);
    expect(r.signingWarning).toBeUndefined();
    const digest = JSON.parse((await readZip(path.join(dir, 'signed.wacz'))).find((e) => e.name === 'datapackage-digest.json')!.data.toString('utf8'));
    // P1363: r‖s, 48 bytes each for P-384.
    expect(Buffer.from(digest.signedData.signature, 'base64').length).toBe(96);
    expect(await verifyAnonymousSignature(digest.signedData)).toBe(true);
  });

  it('refuses keys that are not ECDSA P-256/P-384', () => {
    const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    const k1 = crypto.generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    for (const pem of [rsa, k1]) {
      expect(() => loadSigningKey(pem)).toThrow(expect.objectContaining({ code: 'EXPORT_SIGN_KEY_UNSUPPORTED' }));
    }
    let err: unknown;
    try {
      loadSigningKey('not a key');
    } catch (e) {
      err = e;
    }
    expect(isTroveError(err, 'EXPORT_SIGN_KEY_INVALID')).toBe(true);
  });
});
