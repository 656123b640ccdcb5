/**
 * `trove check` on the corpus (every well-formed file passes, every defect is reported, no
 * file crashes or hangs it) and on records written here to probe digests and fields.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath, corpusWarcFiles, withoutMissingGpl } from '../helpers/corpus.ts';
import { itUsing } from '../helpers/gpl-tests.ts';
import { checkWarcFile, formatChunkedDigests, formatProblem } from '../../core/warc/check-warc.ts';
import type { CheckResult } from '../../core/warc/check-warc.ts';
import { base32 } from '../../core/formats/digest.ts';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'trove-check-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const check = (...p: string[]) => checkWarcFile(corpusPath('warc', ...p));
const codes = (r: CheckResult, level?: 'error' | 'warning') => r.problems.filter((p) => !level || p.level === level).map((p) => p.code);

/** Corpus §1a (and the well-formed ARC files of §1c): valid, warnings allowed. */
const wellFormed = [
  'warcio/example.warc', 'warcio/example.warc.gz', 'warcio.js/example.warc', 'warcio/example-iana.org-chunked.warc',
  'warcio/example-resource.warc.gz', 'warcio.js/example-resource.warc.gz', 'warcio/post-test.warc.gz', 'warcio.js/post-test-more.warc',
  'warcio.js/redirect.warc', 'py-wacz/example-warcinfo-metadata.warc', 'warcio.js/example-url-agnostic-revisit.warc.gz', 'pywb/dupes.warc.gz',
  'pywb/example-wpull.warc.gz', 'pywb/example2.warc.gz', 'webarchive-commons/IAH-urls-wget.warc.gz', 'warcio/example-wget-bad-target-uri.warc.gz',
  'ukwa/transfer_compression_gzip.warc', 'ukwa/transfer_compression_brotli.warc', 'jwarc/gzip_extra_sl.warc.gz', 'jwarc/cc.warc.gz',
  'ukwa/BL-20140325122341434-00000-32090~opera~8443.warc.gz', 'ukwa/IAH-20080430204825-00000-blackbook-truncated.warc.gz',
  'webarchive-commons/mutliple-headers.warc', 'jwat/valid-warcfile-upper-lower-case.warc', 'jwat/valid-warcfile-fields-continuation.warc',
  'jwat/valid-warcfile-non-warc-headers.warc', 'jwat/valid-warcfile-duplicate-concurrentto.warc',
  'warcio/example.arc', 'warcio/example.arc.gz', 'webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc',
];

describe('check on the corpus', () => {
  for (const f of wellFormed) {
    itUsing(`warc/${f}`)(`${f} is valid`, { timeout: 20_000 }, async () => {
      const r = await check(...f.split('/'));
      expect(r.problems.filter((p) => p.level === 'error').map(formatProblem)).toEqual([]);
      expect(r.valid).toBe(true);
      expect(r.records).toBeGreaterThan(0);
    });
  }

  it('link-extraction-test.warc (listed as well-formed) has no WARC-Record-ID anywhere: invalid', async () => {
    const r = await check('webarchive-commons', 'link-extraction-test.warc');
    expect(r.valid).toBe(false);
    expect(codes(r, 'error')).toEqual(Array<string>(9).fill('WARC_MISSING_FIELD'));
  });

  it('example-digest.warc: exactly one payload digest failure (base32, base64, base64url all read)', async () => {
    const r = await check('warcio', 'example-digest.warc');
    expect(r.records).toBe(4);
    expect(codes(r, 'error')).toEqual(['WARC_PAYLOAD_DIGEST_MISMATCH']);
    expect(r.problems.find((p) => p.level === 'error')!.offset).toBe(0);
    expect(r.valid).toBe(false);
  });

  it('reports the defects of §1b', async () => {
    const cases: [string, string[]][] = [
      ['warcio/example-bad-non-chunked.warc.gz', ['WARC_NOT_RANDOM_ACCESS', 'WARC_BLOCK_DIGEST_MISMATCH']],
      ['warcio/example-bad.warc.gz.bad', ['WARC_NOT_RANDOM_ACCESS']],
      ['warcio/example-wrong-chunks.warc.gz', ['WARC_BLOCK_DIGEST_MISMATCH', 'WARC_NOT_RANDOM_ACCESS']],
      ['warcio/example-trunc.warc', ['WARC_BLOCK_DIGEST_MISMATCH', 'WARC_PAYLOAD_DIGEST_MISMATCH', 'WARC_SKIPPED_DATA']],
      ['warcio.js/example-bad-length.warc', ['WARC_BLOCK_DIGEST_MISMATCH', 'WARC_PAYLOAD_DIGEST_MISMATCH', 'WARC_SKIPPED_DATA', 'WARC_BLOCK_DIGEST_MISMATCH']],
      ['warcio/example-space-in-target-uri.warc.gz', ['WARC_BAD_FIELD']],
      ['pywb/missing-status-text.warc', ['WARC_BAD_LINE_ENDING']],
      ['ukwa/truncated_datetime.warc', ['WARC_BAD_FIELD']],
      ['jwat/invalid-warcfile-duplicate-fields.warc', Array<string>(6).fill('WARC_REPEATED_FIELD')],
      ['jwat/invalid-warcfile-record-then-garbage.warc', ['WARC_TRAILING_DATA']],
      ['warcio/bad.arc', ['ARC_BAD_LENGTH', 'WARC_SKIPPED_DATA', 'ARC_BAD_LENGTH', 'ARC_BAD_LENGTH']],
    ];
    for (const [f, errors] of withoutMissingGpl(cases, ([f]) => `warc/${f}`)) {
      const r = await check(...f.split('/'));
      expect([f, codes(r, 'error')]).toEqual([f, errors]);
    }
  });

  itUsing('warc/ukwa')('truncated_datetime.warc: the bad WARC-Date is named at its record', async () => {
    const dates = await check('ukwa', 'truncated_datetime.warc');
    expect(dates.problems.find((p) => p.level === 'error')).toMatchObject({ offset: 1198, message: expect.stringContaining('2019-08-15T01:02') });
  });

  it('reports each malformed value of invalid-warcfile-fields-invalidformat.warc (JWAT: 8 fields)', async () => {
    const r = await check('jwat', 'invalid-warcfile-fields-invalidformat.warc');
    const fields = r.problems.filter((p) => p.level === 'error').map((p) => p.message.split(' ')[0]);
    expect(fields).toEqual(['Content-Length', 'WARC-Target-URI', 'WARC-IP-Address', 'WARC-Date', 'WARC-Record-ID', 'Content-Type', 'WARC-Block-Digest', 'WARC-Segment-Number', '242']);
    expect(codes(r, 'error').at(-1)).toBe('WARC_TRAILING_DATA');
  });

  it('reports missing mandatory fields and unknown types (JWAT lonely-* files)', async () => {
    const monkeys = await check('jwat', 'invalid-warcfile-lonely-monkeys.warc');
    expect(monkeys.problems.map((p) => p.message).filter((m) => m.includes(' has no '))).toEqual([
      'monkeys has no WARC-Record-ID', 'monkeys has no Content-Length', 'monkeys has no WARC-Date',
    ]);
    expect(codes(monkeys, 'warning')).toContain('WARC_UNKNOWN_TYPE');
    const lonely = await check('jwat', 'invalid-warcfile-lonely-request-response-resource-conversion.warc');
    expect(lonely.records).toBe(4);
    expect(codes(lonely, 'error').filter((c) => c === 'WARC_MISSING_FIELD')).toHaveLength(16);
  });

  it('never throws or hangs on any corpus file', { timeout: 60_000 }, async () => {
    for (const f of corpusWarcFiles()) {
      const r = await checkWarcFile(corpusPath(f));
      expect(typeof r.valid).toBe('boolean');
    }
  });
});

/** A WARC record with the given fields and block (Content-Length added). */
function rec(fields: [string, string][], block: Buffer | string): Buffer {
  const b = typeof block === 'string' ? Buffer.from(block) : block;
  const head = ['WARC/1.1', ...fields.map(([k, v]) => `${k}: ${v}`), `Content-Length: ${b.length}`, '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head), b, Buffer.from('\r\n\r\n')]);
}
let n = 0;
const base = (type: string): [string, string][] => [
  ['WARC-Type', type],
  ['WARC-Record-ID', `<urn:uuid:00000000-0000-4000-8000-${String(++n).padStart(12, '0')}>`],
  ['WARC-Date', '2024-03-05T10:20:30Z'],
  ['WARC-Target-URI', 'http://example.com/'],
];
const digest = (algo: string, data: Buffer | string) => createHash(algo).update(data).digest();

async function checkRecords(...records: Buffer[]): Promise<CheckResult> {
  const file = path.join(dir, `r${++n}.warc`);
  await fs.writeFile(file, Buffer.concat(records));
  return checkWarcFile(file);
}

describe('check on records written here', () => {
  const head = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n';
  const chunked = '5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n';
  const block = head + chunked;

  it('accepts block and payload digests in every encoding and algorithm', async () => {
    const encodings: [string, (d: Buffer) => string][] = [
      ['base32', (d) => base32(d)], ['hex', (d) => d.toString('hex')], ['HEX', (d) => d.toString('hex').toUpperCase()],
      ['base64', (d) => d.toString('base64')], ['base64url', (d) => d.toString('base64url')], ['base32 no pad', (d) => base32(d).replace(/=+$/, '')],
    ];
    const records: Buffer[] = [];
    for (const [label, algo] of [['sha1', 'sha1'], ['SHA-1', 'sha1'], ['sha256', 'sha256'], ['sha-256', 'sha256'], ['md5', 'md5']]) {
      for (const [, enc] of encodings) {
        records.push(rec([...base('response'), ['Content-Type', 'application/http; msgtype=response'], ['WARC-Block-Digest', `${label}:${enc(digest(algo!, block))}`], ['WARC-Payload-Digest', `${label}:${enc(digest(algo!, chunked))}`]], block));
      }
    }
    const r = await checkRecords(...records);
    expect(r.records).toBe(30);
    expect(r.problems.map(formatProblem)).toEqual([]);
    // Every payload digest above is over the chunked bytes, as warcio and wget write them.
    expect(r.chunkedDigests).toEqual({ entity: 0, transfer: 30 });
  });

  it('accepts a payload digest over the de-chunked body too, and fails a wrong one', async () => {
    const dechunked = rec([...base('response'), ['Content-Type', 'application/http; msgtype=response'], ['WARC-Payload-Digest', `sha1:${base32(digest('sha1', 'hello world'))}`]], block);
    const wrong = rec([...base('response'), ['Content-Type', 'application/http; msgtype=response'], ['WARC-Payload-Digest', `sha1:${base32(digest('sha1', 'hello'))}`]], block);
    const r = await checkRecords(dechunked, wrong);
    expect(r.problems.map((p) => [p.offset, p.code])).toEqual([[dechunked.length, 'WARC_PAYLOAD_DIGEST_MISMATCH']]);
    expect(r.chunkedDigests).toEqual({ entity: 1, transfer: 0 });
  });

  it('counts per file which convention chunked payload digests follow, and none for unchunked bodies', async () => {
    const entity = rec([...base('response'), ['Content-Type', 'application/http; msgtype=response'], ['WARC-Payload-Digest', `sha1:${base32(digest('sha1', 'hello world'))}`]], block);
    const transfer = rec([...base('response'), ['Content-Type', 'application/http; msgtype=response'], ['WARC-Payload-Digest', `sha1:${base32(digest('sha1', chunked))}`]], block);
    const plainBlock = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello';
    const plain = rec([...base('response'), ['Content-Type', 'application/http; msgtype=response'], ['WARC-Payload-Digest', `sha1:${base32(digest('sha1', 'hello'))}`]], plainBlock);
    const r = await checkRecords(entity, entity, transfer, plain);
    expect(r.problems).toEqual([]);
    expect(r.chunkedDigests).toEqual({ entity: 2, transfer: 1 });
    expect(formatChunkedDigests(r.chunkedDigests)).toBe('; chunked payload digests: 2 over the de-chunked entity (WARC 1.1 §6.2), 1 over the bytes as transferred');
    expect(formatChunkedDigests((await checkRecords(plain)).chunkedDigests)).toBe('');
  });

  it('WARC-Truncated chunked records: bytes that are not chunked coding verify only as stored; a clean cut as what it de-chunks to', async () => {
    const truncated = (body: string, payloadDigestOf: string): Buffer =>
      rec([...base('response'), ['Content-Type', 'application/http; msgtype=response'], ['WARC-Truncated', 'disconnect'], ['WARC-Payload-Digest', `sha1:${base32(digest('sha1', payloadDigestOf))}`]], head + body);
    const notAChunk = 'ZZZ\r\nnot a chunk\r\n';
    const goodThenGarbage = '5\r\nhello\r\nZZZ\r\nnot a chunk\r\n';
    const cut = '5\r\nhello\r\na\r\nworl';
    const records = [
      truncated(notAChunk, notAChunk), // ok: over the bytes as stored
      truncated(notAChunk, ''), // what Trove wrote before: the digest of nothing that de-chunked
      truncated(goodThenGarbage, goodThenGarbage), // ok: over the bytes as stored
      truncated(goodThenGarbage, 'hello'), // what de-chunked before the garbage: no convention gives it
      truncated(cut, 'helloworl'), // ok: what the stored prefix de-chunks to
      truncated(cut, cut), // ok: the bytes as stored
    ];
    const r = await checkRecords(...records);
    const offsetOf = (i: number) => records.slice(0, i).reduce((n, b) => n + b.length, 0);
    expect(r.problems.map((p) => [p.offset, p.level, p.code])).toEqual([
      [offsetOf(1), 'warning', 'WARC_PAYLOAD_DIGEST_MISMATCH'],
      [offsetOf(3), 'warning', 'WARC_PAYLOAD_DIGEST_MISMATCH'],
    ]);
    expect(r.problems[0]!.message).toContain('the body is not valid chunked coding, so only a digest of the bytes as stored verifies');
    expect(r.chunkedDigests).toEqual({ entity: 1, transfer: 3 });
  });

  it('corpus files from wget and warcprox digest the bytes as transferred', async () => {
    const wget = await checkWarcFile(corpusPath('warc', 'webarchive-commons', 'IAH-urls-wget.warc.gz'));
    const warcprox = await checkWarcFile(corpusPath('warc', 'warcio', 'example-iana.org-chunked.warc'));
    expect(wget.chunkedDigests.entity).toBe(0);
    expect(wget.chunkedDigests.transfer).toBeGreaterThan(0);
    expect(warcprox.chunkedDigests).toEqual({ entity: 0, transfer: 1 });
  });

  it('reports repeated non-repeatable fields, bad values, unverifiable algorithms and missing targets', async () => {
    const r = await checkRecords(
      rec([...base('resource'), ['WARC-Date', '2024-03-05T10:20:30Z'], ['WARC-Concurrent-To', '<urn:uuid:nowhere>'], ['WARC-Block-Digest', 'crc32:abcd']], 'x'),
      rec([...base('resource'), ['WARC-Protocol', 'h2'], ['WARC-Protocol', 'tls/1.3'], ['WARC-IP-Address', '::1'], ['Content-Type', 'text/plain'], ['WARC-Truncated', 'length']], 'y'),
      rec([['WARC-Type', 'revisit'], ['WARC-Record-ID', 'no-brackets'], ['WARC-Date', '2024-03-05'], ['WARC-Target-URI', '<http://example.com/>']], ''),
    );
    expect(r.problems.map((p) => `${p.level} ${p.code}`)).toEqual([
      'error WARC_REPEATED_FIELD',
      'warning WARC_NO_CONTENT_TYPE',
      'warning WARC_DIGEST_UNVERIFIED',
      'error WARC_MISSING_FIELD',
      'error WARC_BAD_FIELD',
      'error WARC_BAD_FIELD',
      'warning WARC_WRAPPED_URI',
      'warning WARC_TARGET_NOT_IN_FILE',
    ]);
  });

  it('an empty file or one that is not a WARC is invalid, with a typed problem', async () => {
    expect(codes(await checkRecords())).toEqual(['WARC_NO_RECORDS']);
    expect(codes(await checkRecords(Buffer.from('hello\n')))).toEqual(['WARC_BAD_VERSION']);
    expect(codes(await checkWarcFile(path.join(dir, 'missing.warc')))).toEqual(['WARC_OPEN_FAILED']);
  });
});
