import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { listPages, queryRecords, searchText, timeline } from '../../core/archive/record-query.ts';
import { recordDetail } from '../../core/archive/record-query-detail.ts';
import type { RecordFilter, RecordSummary } from '../../core/api/archive-types.ts';
import { corpusPath, hasGplCorpus, repoRoot } from '../helpers/corpus.ts';
import { itUsing } from '../helpers/gpl-tests.ts';
import { archiveOf, removeTempDirs, tempDir } from '../replay/archive-fixture.ts';
import { html, writeWarc } from '../replay/warc-fixture.ts';

let archive: Archive;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

beforeAll(async () => {
  const fixture = path.join(tempDir('trove-warc-'), 'mixed.warc.gz');
  await writeWarc(fixture, [
    { url: 'https://www.shop.test/', date: '2022-03-01T10:00:00Z', headers: html(), body: '<title>Shop home</title><p>Umbrellas and raincoats</p>' },
    { url: 'https://shop.test/img/logo.png', date: '2022-03-01T10:00:01Z', headers: [['Content-Type', 'image/png']], body: PNG },
    { url: 'https://shop.test/missing', date: '2022-03-01T10:00:02Z', status: 404, statusText: 'Not Found', headers: html(), body: 'gone' },
    { url: 'http://shop.test:8080/admin', date: '2023-07-01T00:00:00Z', headers: [['Content-Type', 'application/json']], body: '{"ok":true}' },
    { url: 'https://other.test/shop.test/', date: '2023-07-02T00:00:00Z', headers: html(), body: '<title>Other</title>' },
  ]);
  ({ archive } = await archiveOf([
    corpusPath('warc/warcio/example.warc.gz'),
    corpusPath('warc/warcio/example-iana.org-chunked.warc'),
    ...(hasGplCorpus ? [corpusPath('warc/pywb/dupes.warc.gz')] : []),
    fixture,
  ]));
});

afterAll(() => {
  archive.close();
  removeTempDirs();
});

function urls(rows: RecordSummary[]): (string | null)[] {
  return rows.map((r) => r.url);
}

function all(filter: RecordFilter): RecordSummary[] {
  return queryRecords(archive, filter, { limit: 1000 }).rows;
}

describe('queryRecords', () => {
  it('pages through every record by keyset, without gaps or repeats', () => {
    const total = archive.index.count();
    const first = queryRecords(archive, {}, { limit: 7 });
    expect(first.total).toBe(total);
    const seen: number[] = first.rows.map((r) => r.id);
    let next = first.next;
    while (next !== null) {
      const page = queryRecords(archive, {}, { limit: 7, after: next });
      expect(page.total).toBeUndefined();
      seen.push(...page.rows.map((r) => r.id));
      next = page.next;
    }
    expect(seen).toHaveLength(total);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(new Set(seen).size).toBe(total);
  });

  it('filters by type, status and MIME type', () => {
    expect(all({ type: ['revisit'] }).every((r) => r.type === 'revisit')).toBe(true);
    expect(urls(all({ status: [404] }))).toEqual(['https://shop.test/missing']);
    expect(urls(all({ mime: 'image/', type: ['response'] }))).toEqual(['https://shop.test/img/logo.png']);
    expect(urls(all({ mime: 'application/json', type: ['response'] }))).toEqual(['http://shop.test:8080/admin']);
    const html200 = all({ mime: 'text/html', status: [200], type: ['response'] });
    expect(html200.length).toBeGreaterThanOrEqual(4);
    const withTotal = queryRecords(archive, { type: ['request'] }, { limit: 2 });
    expect(withTotal.total).toBe(all({ type: ['request'] }).length);
    expect(withTotal.next).not.toBeNull();
  });

  itUsing('warc/pywb')('counts the revisits of dupes.warc.gz, filtered by the MIME type of their HTTP head', () => {
    // 9 in dupes.warc.gz, 1 in example.warc.gz
    expect(all({ type: ['revisit'] })).toHaveLength(10);
    // Revisits carry the MIME type of their HTTP head (dupes.warc.gz has image revisits).
    expect(all({ mime: 'image/png', type: ['revisit'] }).length).toBeGreaterThan(0);
  });

  it('filters by URL (SURT: scheme and www ignored), URL prefix and host', () => {
    expect(urls(all({ url: 'http://shop.test/', type: ['response'] }))).toEqual(['https://www.shop.test/']);
    expect(urls(all({ urlPrefix: 'https://shop.test/img/' }))).toEqual(['https://shop.test/img/logo.png']);
    const host = urls(all({ host: 'shop.test' }));
    expect(host).toEqual(['https://www.shop.test/', 'https://shop.test/img/logo.png', 'https://shop.test/missing', 'http://shop.test:8080/admin']);
    // A different host whose path mentions shop.test is not on the host.
    expect(host).not.toContain('https://other.test/shop.test/');
    expect(all({ host: 'www.iana.org', type: ['response'] }).length).toBeGreaterThanOrEqual(hasGplCorpus ? 2 : 1); // dupes.warc.gz has one more
  });

  it('filters by time (inclusive, partial timestamps) and by full text', () => {
    expect(urls(all({ from: '2023' }))).toEqual(['http://shop.test:8080/admin', 'https://other.test/shop.test/']);
    expect(urls(all({ from: '202207', to: '2023' }))).toEqual(['http://shop.test:8080/admin', 'https://other.test/shop.test/']);
    expect(urls(all({ to: '2022', host: 'shop.test' }))).toHaveLength(3);
    expect(urls(all({ text: 'raincoats' }))).toEqual(['https://www.shop.test/']);
    expect(all({ text: 'raincoats', from: '2023' })).toEqual([]);
    expect(all({ text: '!!!' })).toEqual([]);
  });

  it('rejects bad filters and pages with typed errors', () => {
    expect(() => queryRecords(archive, { from: '20x1' }, { limit: 5 })).toThrow(expect.objectContaining({ code: 'QUERY_BAD_FILTER' }));
    expect(() => queryRecords(archive, {}, { limit: 0 })).toThrow(expect.objectContaining({ code: 'QUERY_BAD_PAGE' }));
    expect(() => queryRecords(archive, {}, { limit: 5, after: -1 })).toThrow(expect.objectContaining({ code: 'QUERY_BAD_PAGE' }));
  });
});

describe('recordDetail', () => {
  it('shows a chunked response: headers, status line, decoded preview, and its request', async () => {
    const row = all({ url: 'http://www.iana.org/', type: ['response'] })[0]!;
    const d = await recordDetail(archive, row.id);
    expect(d.row.id).toBe(row.id);
    expect(d.httpStatusLine).toBe('HTTP/1.1 200 OK');
    expect(d.warcHeaders.find(([k]) => k === 'WARC-Type')?.[1]).toBe('response');
    expect(d.httpHeaders.some(([k, v]) => k.toLowerCase() === 'transfer-encoding' && v === 'chunked')).toBe(true);
    expect(d.bodyPreview.kind).toBe('text');
    expect(d.bodyPreview.text!.startsWith('<!doctype html>')).toBe(true);
    expect(d.siblings.map((s) => s.type)).toEqual(['request']);
  });

  it('shows a request record and links a revisit to its original', async () => {
    const revisit = all({ type: ['revisit'], url: 'http://example.com/' }).find((r) => r.ts === '20170306040348')!;
    const d = await recordDetail(archive, revisit.id);
    expect(d.original?.type).toBe('response');
    expect(d.original?.ts).toBe('20170306040206');
    expect(d.bodyPreview.bytes).toBe(0);
    const req = await recordDetail(archive, d.siblings.find((s) => s.type === 'request')!.id);
    expect(req.httpStatusLine).toMatch(/^GET \/ HTTP\/1\.[01]$/);
  });

  it('previews images as base64 and unknown types as binary', async () => {
    const img = all({ mime: 'image/', type: ['response'] })[0]!;
    const d = await recordDetail(archive, img.id);
    expect(d.bodyPreview).toMatchObject({ kind: 'image', bytes: PNG.length, truncated: false });
    expect(Buffer.from(d.bodyPreview.base64!, 'base64').equals(PNG)).toBe(true);
    const info = all({ type: ['warcinfo'] })[0]!;
    expect((await recordDetail(archive, info.id)).bodyPreview.kind).toBe('text');
  });

  it('throws QUERY_NO_RECORD for an unknown id', async () => {
    await expect(recordDetail(archive, 999999)).rejects.toMatchObject({ code: 'QUERY_NO_RECORD' });
  });
});

describe('timeline, search and pages', () => {
  it('lists the captures of one URL in time order', () => {
    const t = timeline(archive, 'http://example.com/');
    expect(t.map((c) => c.ts)).toEqual([...t.map((c) => c.ts)].sort());
    expect(t.map((c) => c.type)).toContain('revisit');
    expect(t.every((c) => c.url.replace(/\/$/, '') === 'http://example.com')).toBe(true);
    expect(timeline(archive, 'http://nowhere.test/')).toEqual([]);
  });

  it('ranks full-text hits and marks matches in escaped HTML snippets', () => {
    const hits = searchText(archive, 'umbrellas');
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ url: 'https://www.shop.test/', title: 'Shop home' });
    expect(hits[0]!.snippet).toContain('<mark>Umbrellas</mark>');
    expect(searchText(archive, 'domain', 5).length).toBeGreaterThanOrEqual(1);
  });

  it('lists HTML 200 pages with titles, keyset-paged', () => {
    const first = listPages(archive, 2);
    expect(first.rows).toHaveLength(2);
    expect(first.next).not.toBeNull();
    const rest = listPages(archive, 100, first.next!);
    const titles = [...first.rows, ...rest.rows].map((p) => p.title);
    expect(titles).toContain('Shop home');
    expect(titles).toContain('Internet Assigned Numbers Authority');
    expect(rest.next).toBeNull();
  });
});

describe('archive-types.ts', () => {
  it('imports nothing, so the renderer can import its types', () => {
    const src = fs.readFileSync(path.join(repoRoot, 'core/api/archive-types.ts'), 'utf8');
    expect(src).not.toMatch(/^\s*import\s/m);
  });
});
