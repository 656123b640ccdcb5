import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { replay } from '../../core/replay/replay.ts';
import type { ReplayResponse, ReplayResult } from '../../core/replay/replay.ts';
import { notArchivedPage } from '../../core/replay/not-archived-page.ts';
import { isTroveError } from '../../core/errors.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { describeUsing, itUsing } from '../helpers/gpl-tests.ts';
import { archiveOf, removeTempDirs, tempDir } from './archive-fixture.ts';
import { html, writeWarc } from './warc-fixture.ts';
import type { FixtureRecord } from './warc-fixture.ts';
import { databaseOf } from '../../core/archive/archive-dir.ts';
import { recordTypeCode } from '../../core/archive/record-type-key.ts';

const open: Archive[] = [];
afterEach(() => {
  for (const a of open.splice(0)) a.close();
});
afterAll(removeTempDirs);

async function archiveWith(files: string[]): Promise<Archive> {
  const { archive, report } = await archiveOf(files);
  expect(report.problems).toEqual([]);
  open.push(archive);
  return archive;
}

async function archiveOfRecords(records: FixtureRecord[]): Promise<Archive> {
  const file = path.join(tempDir('trove-warc-'), 'fixture.warc.gz');
  await writeWarc(file, records);
  return archiveWith([file]);
}

function archived(r: ReplayResult): ReplayResponse {
  if (r.kind !== 'archived') throw new Error(`expected an archived response, got ${JSON.stringify(r)}`);
  return r;
}

function header(r: ReplayResponse, name: string): string | undefined {
  return r.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}

describe('replay: bodies from corpus WARCs', () => {
  it('de-chunks a chunked response and fixes the headers', async () => {
    const a = await archiveWith([corpusPath('warc/warcio/example-iana.org-chunked.warc')]);
    const r = archived(await replay(a, { url: 'http://www.iana.org/' }));
    expect(r.status).toBe(200);
    expect(r.body.toString('latin1').startsWith('<!doctype html>')).toBe(true);
    expect(header(r, 'transfer-encoding')).toBeUndefined();
    expect(header(r, 'content-length')).toBe(String(r.body.length));
    expect(r.headers.filter(([k]) => k.toLowerCase() === 'content-length')).toHaveLength(1);
    expect(r.fuzzy).toBeUndefined();
    expect(r.capture).toMatchObject({ url: 'http://www.iana.org/', ts: '20170306165409' });
  });

  describeUsing('warc/ukwa')('ukwa files', () => it.each(['transfer_compression_gzip.warc', 'transfer_compression_brotli.warc'])('decodes Content-Encoding (%s)', async (name) => {
    const a = await archiveWith([corpusPath('warc/ukwa', name)]);
    const r = archived(await replay(a, { url: 'http://tokemon.sb.statsbiblioteket.dk/' }));
    expect(r.body.toString('utf8')).toContain('Extremely simple webpage');
    expect(header(r, 'content-encoding')).toBeUndefined();
    expect(header(r, 'content-length')).toBe(String(r.body.length));
  }));

  it('serves a revisit with its own headers and the original body (refers-to URI + date)', async () => {
    const a = await archiveWith([corpusPath('warc/warcio/example.warc.gz')]);
    const original = archived(await replay(a, { url: 'http://example.com/', at: '20170306040206' }));
    const revisit = archived(await replay(a, { url: 'http://example.com/', at: '20170306040348' }));
    expect(revisit.capture.ts).toBe('20170306040348');
    expect(revisit.payloadFrom?.ts).toBe('20170306040206');
    expect(revisit.body.equals(original.body)).toBe(true);
    expect(revisit.body.toString()).toContain('Example Domain');
    // The revisit's own Date header, not the original's.
    expect(header(revisit, 'date')).not.toBe(header(original, 'date'));
  });

  itUsing('warc/pywb')('resolves dupes.warc.gz revisits whose original it holds, and says "not archived" for the others', async () => {
    const a = await archiveWith([corpusPath('warc/pywb/dupes.warc.gz')]);
    // example.com was captured at 17:12:00 and revisited at 17:12:51 in this file.
    const r = archived(await replay(a, { url: 'http://example.com', at: '20140127171251' }));
    expect(r.capture.ts).toBe('20140127171251');
    expect(r.payloadFrom?.ts).toBe('20140127171200');
    expect(r.body.toString()).toContain('Example Domain');
    // The iana.org revisits point at 2014-01-26 captures kept in another file (not in the corpus).
    const css = await replay(a, { url: 'http://www.iana.org/_css/2013.1/screen.css' });
    expect(css.kind).toBe('not-archived');
    // http://iana.org redirects to www.iana.org (the same SURT key): a self-redirect, skipped;
    // with the revisit unresolvable there is nothing to serve, and no redirect loop either.
    expect((await replay(a, { url: 'http://www.iana.org/' })).kind).toBe('not-archived');
  });

  it('finds the original of a URL-agnostic revisit by its payload digest', async () => {
    const a = await archiveWith([corpusPath('warc/warcio.js/example-url-agnostic-revisit.warc.gz'), corpusPath('warc/warcio/example.warc.gz')]);
    const r = archived(await replay(a, { url: 'http://test@example.com/' }));
    expect(r.payloadFrom?.url).toBe('http://example.com/');
    expect(r.body.toString()).toContain('Example Domain');
  });

  it('serves an archived redirect as a redirect', async () => {
    const a = await archiveWith([corpusPath('warc/warcio.js/redirect.warc')]);
    const url = (databaseOf(a).prepare(`SELECT target_uri FROM records WHERE record_type = ${recordTypeCode('response')}`).get() as { target_uri: string }).target_uri;
    const r = archived(await replay(a, { url }));
    expect(r.status).toBe(301);
    expect(header(r, 'location')).toBeTruthy();
  });

  it('serves a resource record with its WARC Content-Type', async () => {
    const a = await archiveWith([corpusPath('warc/warcio.js/example-resource.warc.gz')]);
    const r = archived(await replay(a, { url: 'http://some.example.com:8080/' }));
    expect(r.status).toBe(200);
    expect(header(r, 'content-type')).toBeTruthy();
    expect(r.body.length).toBeGreaterThan(0);
  });

  it('serves records from a STORED WARC inside a WACZ without unzipping it', async () => {
    const a = await archiveWith([corpusPath('wacz/valid_signed_example_1.wacz')]);
    const r = archived(await replay(a, { url: 'https://example.com/' }));
    expect(r.body.toString()).toContain('Example Domain');
    expect(r.capture.file).toMatch(/valid_signed_example_1\.wacz!\/archive\//);
    expect(header(r, 'content-encoding')).toBeUndefined();
  });
});

describe('replay: choosing the capture', () => {
  const page = (date: string, text: string, extra: Partial<FixtureRecord> = {}): FixtureRecord => ({
    url: 'http://site.test/page',
    date,
    headers: html(),
    body: `<title>${text}</title>${text}`,
    ...extra,
  });

  it('takes the closest capture to `at`, the latest without `at`, the later one on a tie', async () => {
    const a = await archiveOfRecords([page('2020-01-01T00:00:00Z', 'y2020'), page('2021-01-01T00:00:00Z', 'y2021'), page('2022-01-01T00:00:00Z', 'y2022')]);
    const text = async (at?: string) => archived(await replay(a, { url: 'http://site.test/page', ...(at ? { at } : {}) })).body.toString();
    expect(await text()).toContain('y2022');
    expect(await text('20210301000000')).toContain('y2021');
    expect(await text('20201201000000')).toContain('y2021');
    expect(await text('2019')).toContain('y2020');
    // Exactly half way between 2020-01-01 and 2021-01-01 (183 days): the later one.
    expect(await text('20200702000000')).toContain('y2021');
  });

  it('skips a redirect to itself (http → https) and serves another capture', async () => {
    const a = await archiveOfRecords([
      page('2020-06-01T00:00:00Z', 'secure', { url: 'https://site.test/page' }),
      { url: 'http://site.test/page', date: '2021-01-01T00:00:00Z', status: 301, statusText: 'Moved Permanently', headers: [['Location', 'https://site.test/page']] },
    ]);
    const r = archived(await replay(a, { url: 'http://site.test/page', at: '2021' }));
    expect(r.status).toBe(200);
    expect(r.body.toString()).toContain('secure');
    expect(r.fuzzy).toMatch(/scheme/);
  });

  it('serves a self-redirect only when nothing else exists and it does not loop', async () => {
    const a = await archiveOfRecords([
      { url: 'http://only.test/', date: '2021-01-01T00:00:00Z', status: 301, statusText: 'Moved', headers: [['Location', 'https://only.test/']] },
    ]);
    const first = archived(await replay(a, { url: 'http://only.test/' }));
    expect(first.status).toBe(301);
    // Following it would ask for https://only.test/, which would redirect to itself: not archived.
    expect((await replay(a, { url: 'https://only.test/' })).kind).toBe('not-archived');
  });

  it('falls back between http and https', async () => {
    const a = await archiveOfRecords([page('2021-01-01T00:00:00Z', 'tls', { url: 'https://tls.test/a' })]);
    const r = archived(await replay(a, { url: 'http://tls.test/a' }));
    expect(r.body.toString()).toContain('tls');
    expect(r.fuzzy).toMatch(/https/);
  });

  it('answers a miss with "not archived" and nearby captures, never the live web', async () => {
    const a = await archiveOfRecords([page('2021-01-01T00:00:00Z', 'q1', { url: 'http://site.test/search?q=cats' })]);
    const r = await replay(a, { url: 'http://site.test/other', at: '2021' });
    // No capture of that path: the host's pages are suggested.
    expect(r).toEqual({ kind: 'not-archived', url: 'http://site.test/other', at: '2021', nearest: [{ url: 'http://site.test/search?q=cats', ts: '20210101000000' }] });
    expect(await replay(a, { url: 'http://elsewhere.test/' })).toEqual({ kind: 'not-archived', url: 'http://elsewhere.test/' });
    const near = await replay(a, { url: 'http://site.test/search?z=1' });
    expect(near.kind).toBe('not-archived');
    expect(near.kind === 'not-archived' && near.nearest?.[0]?.url).toBe('http://site.test/search?q=cats');
  });

  it('rejects a malformed timestamp with a typed error', async () => {
    const a = await archiveOfRecords([page('2021-01-01T00:00:00Z', 'x')]);
    const err = await replay(a, { url: 'http://site.test/page', at: '21-01' }).catch((e: unknown) => e);
    expect(isTroveError(err, 'CAPTURE_BAD_TIMESTAMP')).toBe(true);
  });
});

describe('replay: fuzzy matching', () => {
  const at = '2021-01-01T00:00:00Z';
  const res = (url: string, body: string, type = 'text/html'): FixtureRecord => ({ url, date: at, headers: [['Content-Type', type]], body });

  it('ignores cache-buster parameters (_, cb, utm_*, numeric timestamps)', async () => {
    const a = await archiveOfRecords([res('http://f.test/api/data?id=7&_=1600000000000', 'data7'), res('http://f.test/page?utm_source=mail', 'page')]);
    for (const url of ['http://f.test/api/data?id=7', 'http://f.test/api/data?id=7&_=1700000000123', 'http://f.test/api/data?cb=9&id=7']) {
      const r = archived(await replay(a, { url }));
      expect(r.body.toString()).toBe('data7');
      expect(r.fuzzy).toMatch(/cache-busting/);
    }
    expect(archived(await replay(a, { url: 'http://f.test/page' })).body.toString()).toBe('page');
    expect(archived(await replay(a, { url: 'http://f.test/page?utm_campaign=x&utm_source=y' })).body.toString()).toBe('page');
  });

  it('ignores the query of static files', async () => {
    const a = await archiveOfRecords([res('http://f.test/app.js?v=1', 'js1', 'application/javascript'), res('http://f.test/logo.png?w=10', 'png', 'image/png')]);
    const r = archived(await replay(a, { url: 'http://f.test/app.js?v=2' }));
    expect(r.body.toString()).toBe('js1');
    expect(r.fuzzy).toMatch(/static/);
    expect(archived(await replay(a, { url: 'http://f.test/logo.png' })).body.toString()).toBe('png');
  });

  it('scores candidates sharing the URL up to ? by query similarity', async () => {
    const a = await archiveOfRecords([
      res('http://f.test/list?page=2&sort=asc', 'p2asc'),
      res('http://f.test/list?page=3&sort=desc', 'p3desc'),
      res('http://f.test/list?page=2&sort=desc&view=grid', 'p2descgrid'),
    ]);
    const r = archived(await replay(a, { url: 'http://f.test/list?page=2&sort=desc' }));
    expect(r.body.toString()).toBe('p2descgrid');
    expect(r.fuzzy).toMatch(/similarity/);
    // Nothing in common: no fuzzy match.
    expect((await replay(a, { url: 'http://f.test/list?other=1' })).kind).toBe('not-archived');
  });

  it('renames a jsonp callback to the one the page asks for', async () => {
    const a = await archiveOfRecords([res('http://f.test/feed?callback=jQuery111_222&q=x', '/**/jQuery111_222({"a":1});', 'application/javascript')]);
    const r = archived(await replay(a, { url: 'http://f.test/feed?callback=jQuery999_333&q=x' }));
    expect(r.body.toString()).toBe('/**/jQuery999_333({"a":1});');
    expect(header(r, 'content-length')).toBe(String(r.body.length));
  });
});

describe('replay: requests', () => {
  it('answers Range requests with 206 and HEAD without a body', async () => {
    const file = path.join(tempDir('trove-warc-'), 'media.warc.gz');
    await writeWarc(file, [{ url: 'http://m.test/v.mp4', date: '2021-01-01T00:00:00Z', headers: [['Content-Type', 'video/mp4']], body: Buffer.from('0123456789') }]);
    const a = await archiveWith([file]);
    const r = archived(await replay(a, { url: 'http://m.test/v.mp4', headers: [['Range', 'bytes=2-5']] }));
    expect(r.status).toBe(206);
    expect(r.body.toString()).toBe('2345');
    expect(header(r, 'content-range')).toBe('bytes 2-5/10');
    expect(header(r, 'content-length')).toBe('4');
    const bad = archived(await replay(a, { url: 'http://m.test/v.mp4', headers: [['range', 'bytes=20-']] }));
    expect(bad.status).toBe(416);
    const head = archived(await replay(a, { url: 'http://m.test/v.mp4', method: 'HEAD' }));
    expect(head.body.length).toBe(0);
    expect(header(head, 'content-length')).toBe('10');
  });

  it('prefers a whole 200 over a 206 partial of the same URL, even one closer in time, and answers Ranges from it', async () => {
    const file = path.join(tempDir('trove-warc-'), 'media.warc.gz');
    await writeWarc(file, [
      // What a browser's Range request left (at the page's time), then Trove's whole fetch, later.
      { url: 'http://m.test/v.mp4', date: '2021-01-01T00:00:00Z', status: 206, statusText: 'Partial Content', headers: [['Content-Type', 'video/mp4'], ['Content-Range', 'bytes 0-3/10']], body: Buffer.from('0123') },
      { url: 'http://m.test/v.mp4', date: '2021-01-01T00:00:30Z', headers: [['Content-Type', 'video/mp4']], body: Buffer.from('0123456789') },
    ]);
    const a = await archiveWith([file]);
    for (const at of [undefined, '20210101000000']) {
      const whole = archived(await replay(a, { url: 'http://m.test/v.mp4', ...(at ? { at } : {}) }));
      expect(whole.status, at).toBe(200);
      expect(whole.body.toString(), at).toBe('0123456789');
      const part = archived(await replay(a, { url: 'http://m.test/v.mp4', ...(at ? { at } : {}), headers: [['Range', 'bytes=8-']] }));
      expect(part.status, at).toBe(206);
      expect(part.body.toString(), at).toBe('89');
      expect(header(part, 'content-range'), at).toBe('bytes 8-9/10');
      const past = archived(await replay(a, { url: 'http://m.test/v.mp4', ...(at ? { at } : {}), headers: [['Range', 'bytes=10-']] }));
      expect(past.status, at).toBe(416);
      expect(header(past, 'content-range'), at).toBe('bytes */10');
    }
  });

  it('serves an HLS master playlist with only the variants whose playlist and every segment are archived', async () => {
    const file = path.join(tempDir('trove-warc-'), 'hls.warc.gz');
    const m3u8: [string, string][] = [['Content-Type', 'application/vnd.apple.mpegurl']];
    const master = [
      '#EXTM3U',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="en",URI="subs.m3u8"',
      '#EXT-X-STREAM-INF:BANDWIDTH=100000,RESOLUTION=160x90,SUBTITLES="s"',
      'low/index.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x180,SUBTITLES="s"',
      'mid/index.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360,SUBTITLES="s"',
      'high/index.m3u8',
      '',
    ].join('\n');
    const media = '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg_0.ts\n#EXTINF:2,\nseg_1.ts\n#EXT-X-ENDLIST\n';
    const date = '2021-01-01T00:00:00Z';
    const seg = (url: string): FixtureRecord => ({ url, date, headers: [['Content-Type', 'video/mp2t']], body: Buffer.from('TS') });
    await writeWarc(file, [
      { url: 'http://v.test/master.m3u8', date, headers: m3u8, body: Buffer.from(master) },
      // low: whole; mid: its playlist but one segment missing; high: whole.
      { url: 'http://v.test/low/index.m3u8', date, headers: m3u8, body: Buffer.from(media) },
      seg('http://v.test/low/seg_0.ts'),
      seg('http://v.test/low/seg_1.ts'),
      { url: 'http://v.test/mid/index.m3u8', date, headers: m3u8, body: Buffer.from(media) },
      seg('http://v.test/mid/seg_0.ts'),
      { url: 'http://v.test/high/index.m3u8', date, headers: m3u8, body: Buffer.from(media) },
      seg('http://v.test/high/seg_0.ts'),
      seg('http://v.test/high/seg_1.ts'),
    ]);
    const a = await archiveWith([file]);
    const r = archived(await replay(a, { url: 'http://v.test/master.m3u8' }));
    const text = r.body.toString('utf8');
    expect(text).toContain('low/index.m3u8');
    expect(text).toContain('high/index.m3u8');
    expect(text).not.toContain('mid/index.m3u8');
    expect(text).not.toContain('BANDWIDTH=400000');
    expect(text).toContain('#EXT-X-MEDIA:TYPE=SUBTITLES');
    expect(header(r, 'content-length')).toBe(String(r.body.length));
    // Chromium's own player asks with a Range: answered from the steered body.
    const ranged = archived(await replay(a, { url: 'http://v.test/master.m3u8', headers: [['Range', 'bytes=0-']] }));
    expect(ranged.body.toString('utf8')).toBe(text);
    // A media playlist, and a master whose variants are all whole, are served as stored.
    expect(archived(await replay(a, { url: 'http://v.test/mid/index.m3u8' })).body.toString('utf8')).toBe(media);
  });

  it('serves a DASH manifest with only the Representations whose every segment is archived, a set with none whole as stored', async () => {
    const file = path.join(tempDir('trove-warc-'), 'dash.warc.gz');
    const date = '2021-01-01T00:00:00Z';
    const tpl = '<SegmentTemplate media="$RepresentationID$-$Number$.m4s" initialization="$RepresentationID$-init.m4s" duration="2" startNumber="1"/>';
    const mpd = `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT4S"><Period>
<AdaptationSet contentType="video" mimeType="video/mp4">${tpl}
<Representation id="v1" bandwidth="100000" width="320" height="180"/>
<Representation id="v2" bandwidth="900000" width="640" height="360"></Representation>
</AdaptationSet>
<AdaptationSet contentType="audio" mimeType="audio/mp4">${tpl}
<Representation id="a1" bandwidth="64000"/>
</AdaptationSet>
</Period></MPD>`;
    const part = (name: string): FixtureRecord => ({ url: `http://d.test/${name}`, date, headers: [['Content-Type', 'video/mp4']], body: Buffer.from(name) });
    // v1 whole; v2 without its second segment; a1 not at all.
    await writeWarc(file, [{ url: 'http://d.test/manifest.mpd', date, headers: [['Content-Type', 'application/dash+xml']], body: Buffer.from(mpd) }, ...['v1-init', 'v1-1', 'v1-2', 'v2-init', 'v2-1'].map((n) => part(`${n}.m4s`))]);
    const a = await archiveWith([file]);
    const text = archived(await replay(a, { url: 'http://d.test/manifest.mpd' })).body.toString('utf8');
    expect(text).toContain('<Representation id="v1"');
    expect(text).not.toContain('id="v2"');
    expect(text).toContain('<Representation id="a1"');
    expect(text).toBe(mpd.replace('<Representation id="v2" bandwidth="900000" width="640" height="360"></Representation>', ''));
  });

  it('replays a POST by URL among the POST captures, and not for a GET', async () => {
    const a = await archiveWith([corpusPath('warc/warcio/post-test.warc.gz')]);
    const r = archived(await replay(a, { url: 'http://httpbin.org/post?foo=bar', method: 'POST' }));
    expect(r.capture.url).toBe('http://httpbin.org/post?foo=bar');
    expect(r.fuzzy).toMatch(/^POST matched by URL only/);
    expect(header(r, 'content-type')).toBe('application/json');
    expect((await replay(a, { url: 'http://httpbin.org/post' })).kind).toBe('not-archived');
  });

  it('serves a 304 revisit with the original status and headers', async () => {
    const a = await archiveOfRecords([
      { url: 'http://n.test/', date: '2020-01-01T00:00:00Z', headers: html([['X-Version', 'one']]), body: 'original body', warcHeaders: { 'WARC-Record-ID': '<urn:uuid:00000000-0000-0000-0000-000000000001>' } },
      {
        type: 'revisit',
        url: 'http://n.test/',
        date: '2021-01-01T00:00:00Z',
        status: 304,
        statusText: 'Not Modified',
        headers: [['ETag', '"x"']],
        warcHeaders: { 'WARC-Profile': 'http://netpreserve.org/warc/1.1/revisit/server-not-modified', 'WARC-Refers-To': '<urn:uuid:00000000-0000-0000-0000-000000000001>' },
      },
    ]);
    const r = archived(await replay(a, { url: 'http://n.test/' }));
    expect(r.capture.ts).toBe('20210101000000');
    expect(r.status).toBe(200);
    expect(header(r, 'x-version')).toBe('one');
    expect(r.body.toString()).toBe('original body');
  });
});

describe('notArchivedPage', () => {
  it('is a self-contained 404 that escapes what it shows', () => {
    const p = notArchivedPage({ kind: 'not-archived', url: 'http://x.test/<script>', at: '20210101000000', nearest: [{ url: 'http://x.test/"a"', ts: '20200101000000' }] });
    expect(p.status).toBe(404);
    const body = p.body.toString();
    expect(body).not.toContain('<script>');
    expect(body).toContain('&#60;script&#62;');
    expect(body).toContain('2021-01-01 00:00:00 UTC');
    expect(p.headers).toContainEqual(['Content-Length', String(p.body.length)]);
    expect(p.headers.find(([k]) => k === 'Content-Security-Policy')?.[1]).toContain("default-src 'none'");
  });
});
