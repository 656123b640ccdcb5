/**
 * CDXJ indexing against what pywb and warcio.js upstream tests state (EXPECTED.json), and
 * against `warcio cdx-index` run on the corpus, with every difference explained.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { corpusPath, repoRoot, withoutMissingGpl } from '../helpers/corpus.ts';
import { itUsing } from '../helpers/gpl-tests.ts';
import { formatCdxj, sortCdxjLines } from '../../core/archive/cdxj.ts';
import { timestamp14 } from '../../core/archive/archive-warc-date.ts';
import type { CdxjEntry } from '../../core/archive/cdxj.ts';
import { indexFile } from '../../core/archive/cdxj-index.ts';
import { postQuery } from '../../core/archive/cdxj-post-query.ts';

async function entries(...p: string[]): Promise<CdxjEntry[]> {
  const out: CdxjEntry[] = [];
  for await (const e of indexFile(corpusPath('warc', ...p))) out.push(e);
  return out;
}
const lines = async (...p: string[]) => sortCdxjLines((await entries(...p)).map(formatCdxj));

describe('CDXJ lines as upstream tests state them', () => {
  it('post-test-more.warc: POST keys with __wb_method=post (form, JSON, chunked body as base64)', async () => {
    const got = (await entries('warcio.js', 'post-test-more.warc')).map((e) => [e.urlkey, e.offset, e.length]);
    expect(got).toEqual([
      ['org,httpbin)/post?__wb_method=post&another=more^data&test=some+data', 0, 688],
      ['org,httpbin)/post?__wb_method=post&a=json-data', 1227, 655],
      ['org,httpbin)/post?__wb_method=post&__wb_post_data=na0kc29tzq0kza0ky2h1bmstzw5jb2rlza0kna0kzgf0yq0kma0kdqo=', 2338, 628],
    ]);
  });

  it('post-test.warc.gz: the request body and the query string both go into the key', async () => {
    expect((await entries('warcio', 'post-test.warc.gz')).map((e) => [e.urlkey, e.method, e.requestBody])).toEqual([
      ['org,httpbin)/post?__wb_method=post&foo=bar&test=abc', 'POST', 'foo=bar&test=abc'],
      ['org,httpbin)/post?__wb_method=post&a=1&b=[]&c=3', 'POST', 'A=1&B=[]&C=3'],
      ['org,httpbin)/post?__wb_method=post&data=^&foo=bar', 'POST', 'data=^'],
    ]);
  });

  it('warcio.js "cdx resource": a resource record with a port in its URL', async () => {
    expect(await lines('warcio.js', 'example-resource.warc.gz')).toEqual([
      'com,example,some:8080)/ 20200405201750 {"url":"http://some.example.com:8080/","mime":"text/plain","digest":"QEF4QP424P5IOPMURMAC4K6KNUTHXQW2","length":"261","offset":"0","filename":"example-resource.warc.gz"}',
    ]);
  });

  itUsing('warc/pywb')('pywb dupes.cdx: responses, and revisits as warc/revisit', async () => {
    const e = await entries('pywb', 'dupes.warc.gz');
    const first = e.find((x) => x.offset === 334)!;
    expect([first.urlkey, first.timestamp, first.url, first.mime, first.status, first.digest, first.length]).toEqual(['com,example)/', '20140127171200', 'http://example.com', 'text/html', '200', 'B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A', 1046]);
    const revisit = e.find((x) => x.offset === 11875)!;
    expect([revisit.urlkey, revisit.timestamp, revisit.mime, revisit.digest, revisit.length]).toEqual(['com,example)/', '20140127171251', 'warc/revisit', 'B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A', 553]);
    expect(e.map((x) => x.offset)).not.toContain(0); // warcinfo
    expect(e.map((x) => x.offset)).not.toContain(1380); // request
  });

  itUsing('warc/pywb')('pywb test_indexing: wpull response and its urn:X-wpull:log resource', async () => {
    const e = await entries('pywb', 'example-wpull.warc.gz');
    expect(e.map((x) => [x.urlkey, x.timestamp, x.url, x.mime, x.status, x.digest, x.length, x.offset])).toEqual([
      ['com,example)/', '20150330235046', 'http://example.com/', 'text/html', '200', 'B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A', 1150, 2031],
      ['urn:x-wpull:log', '20150330235046', 'urn:X-wpull:log', 'text/plain', undefined, 'Q32A3PBAN6S7I26HWZDX5CDCB6MN6UN6', 557, 3181],
    ]);
  });

  itUsing('warc/pywb')('pywb missing-status-text.cdxj: status 302, mime unk, length 485', async () => {
    expect(await lines('pywb', 'missing-status-text.warc')).toEqual([
      'org,iana)/bads 20140127171238 {"url":"http://iana.org/bads","mime":"unk","status":"302","digest":"3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ","length":"485","offset":"0","filename":"missing-status-text.warc"}',
    ]);
  });

  it('warcio.js "cdx11 warc bad lengths": lines at 1197 (1364) and 3370 (944)', async () => {
    const e = await entries('warcio.js', 'example-bad-length.warc');
    expect(e.map((x) => [x.timestamp, x.mime, x.status, x.digest, x.length, x.offset])).toEqual([
      ['20170306040206', 'text/html', '200', 'G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK', 1364, 1197],
      ['20170306040348', 'warc/revisit', '200', 'G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK', 944, 3370],
    ]);
  });

  itUsing('warc/ukwa')('UKWA truncated WARC-Date 2019-08-15T01:02 gives 20190815010200', async () => {
    const e = await entries('ukwa', 'truncated_datetime.warc');
    expect(e.find((x) => x.offset === 1198)!.timestamp).toBe('20190815010200');
    expect(timestamp14('2020-04-12T18:42:50.696509Z')).toBe('20200412184250');
    expect(timestamp14('2008-04-30t20:48:25z')).toBe('20080430204825');
  });

  it('pywb bad.arc: ARC records at 134 (67) and 202 (59)', async () => {
    const e = await entries('warcio', 'bad.arc');
    expect(e.map((x) => [x.urlkey, x.timestamp, x.mime, x.length, x.offset])).toEqual([
      ['com,example)/', '20140401000000', 'text/html', 67, 134],
      ['com,example)/', '20140102000000', 'text/plain', 59, 202],
      ['com,example)/', '20140401000000', 'text/html', 68, 262],
    ]);
  });

  it('ARC records are indexed with a computed sha1 payload digest (they carry none)', async () => {
    const e = await entries('warcio', 'example.arc.gz');
    expect(e.map((x) => [x.urlkey, x.status, x.mime, x.digest, x.length, x.offset])).toEqual([['com,example)/', '200', 'text/html', 'B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A', 856, 171]]);
  });

  it('a file that breaks off still indexes the records before the break, then throws', async () => {
    const got: CdxjEntry[] = [];
    const err = await (async () => {
      for await (const e of indexFile(corpusPath('warc', 'jwat', 'invalid-warcfile-record-then-garbage.warc'))) got.push(e);
    })().catch((x: unknown) => x);
    expect(got.map((e) => e.urlkey)).toEqual(['org,archive)/robots.txt']);
    expect(err).toMatchObject({ code: 'WARC_TRAILING_DATA', details: { offset: 1135 } });
  });
});

describe('postQuery', () => {
  it('turns bodies into queries as pywb and warcio.js do', () => {
    expect(postQuery('application/x-www-form-urlencoded', Buffer.from('a=1&b=2'))).toBe('a=1&b=2');
    expect(postQuery('application/json', Buffer.from('{"a": {"b": 1, "c": [true, null, "x"]}, "b": 2}'))).toBe('b=1&c=true&c.2_=null&c.3_=x&b.2_=2');
    expect(postQuery('text/plain', Buffer.from('{"q":"x"}'))).toBe('q=x');
    expect(postQuery('text/plain', Buffer.from('not json'))).toBe('__wb_post_data=bm90IGpzb24=');
    expect(postQuery(null, Buffer.from([0, 255]))).toBe('__wb_post_data=AP8=');
    expect(postQuery('application/json', Buffer.from('{broken'))).toBe('');
    expect(postQuery('application/x-www-form-urlencoded', Buffer.alloc(5000, 'a'))).toHaveLength(4096);
    const mfd = '--XX\r\nContent-Disposition: form-data; name="f"; filename="f.txt"\r\n\r\nline1\r\nline2\r\n--XX\r\nContent-Disposition: form-data; name="g"\r\n\r\nv\r\n--XX--\r\n';
    expect(postQuery('multipart/form-data; boundary=XX', Buffer.from(mfd))).toBe('f=line1%0D%0Aline2&g=v');
  });
});

describe('CDXJ formatting and sorting', () => {
  it('writes numbers as strings and leaves out empty fields, in pywb order', () => {
    expect(formatCdxj({ urlkey: 'com,example)/', timestamp: '20240101000000', url: 'http://example.com/', length: 10, offset: 0, filename: 'a.warc.gz' })).toBe(
      'com,example)/ 20240101000000 {"url":"http://example.com/","length":"10","offset":"0","filename":"a.warc.gz"}',
    );
  });

  it('sorts bytewise (UTF-8 order), also past the BMP', () => {
    expect(sortCdxjLines(['b', 'a', 'B', 'ab'])).toEqual(['B', 'a', 'ab', 'b']);
    // U+FFFD sorts before U+1F600 in UTF-8 bytes, after it in UTF-16 code units.
    expect(sortCdxjLines(['x\u{1F600}', 'x\uFFFD'])).toEqual(['x\uFFFD', 'x\u{1F600}']);
  });
});

/**
 * `warcio cdx-index` on the corpus. Where warcio.js is right the lines are identical; the other
 * files are listed with the reason they differ (README: warcio.js is a second reader, not truth).
 */
const sameAsWarcio = [
  'jwarc/cc.warc.gz', 'jwarc/gzip_extra_sl.warc.gz', 'pywb/example2.warc.gz', 'warcio.js/example-bad-length.warc', 'warcio.js/example-resource.warc.gz',
  'warcio.js/example-url-agnostic-revisit.warc.gz', 'warcio.js/example.warc', 'warcio.js/post-test-more.warc', 'warcio.js/redirect.warc',
  'warcio/example-digest.warc', 'warcio/example-iana.org-chunked.warc', 'warcio/example-trunc.warc', 'warcio/example.warc', 'warcio/example.warc.gz',
  'warcio/post-test.warc.gz', 'jwat/valid-warcfile-duplicate-concurrentto.warc', 'jwat/valid-warcfile-non-warc-headers.warc',
];
/** Files where warcio.js differs, and why (the test checks both index the same captures). */
const differsFromWarcio: Record<string, string> = {
  'pywb/dupes.warc.gz': 'a 302 with no Content-Type: pywb writes mime "unk", warcio.js nothing',
  'pywb/missing-status-text.warc': 'warcio.js cannot see the CR CR LF head: no status, length includes the separator',
  'pywb/example-wpull.warc.gz': 'python-surt lower-cases urn:X-wpull:log; the digest comes from WARC-Block-Digest (resource)',
  'warcio/example-resource.warc.gz': 'mime without ;charset (pywb)',
  'py-wacz/example-warcinfo-metadata.warc': 'sha-256 label kept (pywb strips only sha1:); warcio.js keys a request written as a status line as __wb_method=http/1.1',
  'webarchive-commons/mutliple-headers.warc': 'python-surt drops the trailing slash; warcio.js keeps it',
};

describe('against warcio cdx-index', () => {
  it('gives the same lines where warcio.js is right, and differs only as explained elsewhere', { timeout: 120_000 }, async () => {
    const run = promisify(execFile);
    const cli = path.join(repoRoot, 'node_modules', 'warcio', 'dist', 'cli.js');
    for (const f of withoutMissingGpl([...sameAsWarcio, ...Object.keys(differsFromWarcio)], (f) => `warc/${f}`)) {
      const { stdout } = await run(process.execPath, [cli, 'cdx-index', corpusPath('warc', ...f.split('/'))], { maxBuffer: 1 << 24 });
      const theirs = sortCdxjLines(stdout.split('\n').filter(Boolean));
      const ours = await lines(...f.split('/'));
      if (sameAsWarcio.includes(f)) {
        expect([f, ours]).toEqual([f, theirs]);
      } else {
        // Same captures (offsets) even where fields differ.
        const offsets = (ls: string[]) => ls.map((l) => JSON.parse(l.slice(l.indexOf('{'))).offset).sort();
        expect([f, offsets(ours)]).toEqual([f, offsets(theirs)]);
        expect(ours).not.toEqual(theirs);
      }
    }
  });
});
