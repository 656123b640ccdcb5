/**
 * replayHead / replayInfo (the replay banner's question, asked on every navigation): the same
 * capture, status and headers as replay(), from the index and the records' heads only. The body
 * is never read: a record whose body was lost from the file still gets its info, where a full
 * replay fails reading it. WARCs are written with warcio.js (an independent writer).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { replayInfo } from '../../core/app/replay-bridge.ts';
import { replay, replayHead } from '../../core/replay/replay.ts';
import { surtKey } from '../../core/scope/surt.ts';
import { archiveOf, removeTempDirs, tempDir } from './archive-fixture.ts';
import { writeWarc } from './warc-fixture.ts';

afterAll(removeTempDirs);

const SITE = 'http://head.example.test';
const BIG = 4 << 20;
const ORIGINAL_ID = '<urn:uuid:00000000-0000-4000-8000-000000000001>';

function chunked(data: Buffer, size = 1000): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) {
    const c = data.subarray(i, i + size);
    parts.push(Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

async function fixture(gzip: boolean) {
  const dir = tempDir('trove-replay-head-');
  const warc = path.join(dir, gzip ? 'site.warc.gz' : 'site.warc');
  const text = 'word '.repeat(5000);
  await writeWarc(
    warc,
    [
      { url: `${SITE}/page.html`, date: '2024-03-01T10:00:00Z', headers: [['Content-Type', 'text/html; charset=utf-8'], ['ETag', '"p1"']], body: '<title>Page</title><p>hello</p>' },
      {
        url: `${SITE}/packed.js`,
        date: '2024-03-01T10:00:01Z',
        headers: [['Content-Type', 'text/javascript'], ['Transfer-Encoding', 'chunked'], ['Content-Encoding', 'gzip']],
        body: chunked(zlib.gzipSync(Buffer.from(text))),
      },
      { url: `${SITE}/redirect`, date: '2024-03-01T10:00:02Z', status: 301, statusText: 'Moved Permanently', headers: [['Location', '/page.html'], ['Content-Length', '0']] },
      { type: 'resource', url: `${SITE}/notes.txt`, date: '2024-03-01T10:00:03Z', headers: [['Content-Type', 'text/plain']], body: 'plain notes' },
      { url: `${SITE}/video.bin`, date: '2024-03-01T10:00:04Z', headers: [['Content-Type', 'application/octet-stream']], body: Buffer.alloc(BIG, 7) },
      { url: `${SITE}/same.html`, date: '2024-03-01T10:00:05Z', headers: [['Content-Type', 'text/html'], ['X-Version', 'one']], body: 'the same body', warcHeaders: { 'WARC-Record-ID': ORIGINAL_ID } },
      {
        type: 'revisit',
        url: `${SITE}/same.html`,
        date: '2024-03-02T10:00:00Z',
        headers: [['Content-Type', 'text/html'], ['X-Version', 'two']],
        warcHeaders: { 'WARC-Profile': 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest', 'WARC-Refers-To': ORIGINAL_ID },
      },
      {
        type: 'revisit',
        url: `${SITE}/same.html`,
        date: '2024-03-03T10:00:00Z',
        status: 304,
        statusText: 'Not Modified',
        headers: [['ETag', '"x"']],
        warcHeaders: { 'WARC-Profile': 'http://netpreserve.org/warc/1.1/revisit/server-not-modified', 'WARC-Refers-To': ORIGINAL_ID },
      },
    ],
    { gzip },
  );
  return { warc, ...(await archiveOf([warc])) };
}

describe('replayHead', () => {
  it('answers with the capture, status and headers replay() serves, and the body size when it is stored as served', async () => {
    const { archive } = await fixture(true);
    try {
      const asks: [string, string?][] = [['/page.html'], ['/redirect'], ['/notes.txt'], ['/video.bin'], ['/same.html', '20240301'], ['/same.html', '20240302'], ['/same.html', '20240303']];
      for (const [p, at] of asks) {
        const req = { url: SITE + p, ...(at ? { at } : {}) };
        const full = await replay(archive, req);
        const head = await replayHead(archive, req);
        if (full.kind !== 'archived' || head.kind !== 'archived') throw new Error(`${p} not archived`);
        const { body, ...rest } = full;
        expect(head, `${p} ${at}`).toEqual({ ...rest, bodyBytes: body.length });
      }
      // The revisits: their own headers (the 304's: the original's), the original's body size.
      const two = await replayHead(archive, { url: `${SITE}/same.html`, at: '20240302' });
      const notModified = await replayHead(archive, { url: `${SITE}/same.html`, at: '20240303' });
      expect(two.kind === 'archived' && [two.headers, two.bodyBytes, two.payloadFrom?.ts]).toEqual([
        [['Content-Type', 'text/html'], ['X-Version', 'two'], ['Content-Length', '13']],
        13,
        '20240301100005',
      ]);
      expect(notModified.kind === 'archived' && [notModified.status, notModified.headers]).toEqual([200, [['Content-Type', 'text/html'], ['X-Version', 'one'], ['Content-Length', '13']]]);
      const missing = await replayHead(archive, { url: `${SITE}/nothing-here` });
      expect(missing).toEqual(await replay(archive, { url: `${SITE}/nothing-here` }));
    } finally {
      archive.close();
    }
  });

  it('gives no size (and no Content-Length) for a chunked, gzip-encoded body rather than decoding it', async () => {
    const { archive } = await fixture(true);
    try {
      const full = await replay(archive, { url: `${SITE}/packed.js` });
      const head = await replayHead(archive, { url: `${SITE}/packed.js` });
      if (full.kind !== 'archived' || head.kind !== 'archived') throw new Error('not archived');
      expect(full.body.length).toBe(25_000);
      expect(head.bodyBytes).toBeNull();
      expect(head.status).toBe(200);
      expect(head.headers).toEqual(full.headers.filter(([k]) => k.toLowerCase() !== 'content-length'));
      const info = await replayInfo(archive, `${SITE}/packed.js`);
      expect(info).toMatchObject({ kind: 'archived', status: 200, mime: 'text/javascript', bodyBytes: null });
    } finally {
      archive.close();
    }
  });

  it('answers for a record whose body is gone from the file, which a full replay cannot read', async () => {
    const { archive, warc } = await fixture(false);
    try {
      const [video] = archive.index.findCaptures(surtKey(`${SITE}/video.bin`));
      // Keep the record's WARC and HTTP heads and 10 bytes of its 4 MiB body: the rest is lost.
      const bytes = fs.readFileSync(warc);
      const warcHeadEnd = bytes.indexOf('\r\n\r\n', video!.offset) + 4;
      const httpHeadEnd = bytes.indexOf('\r\n\r\n', warcHeadEnd) + 4;
      fs.truncateSync(warc, httpHeadEnd + 10);

      await expect(replay(archive, { url: `${SITE}/video.bin` })).rejects.toMatchObject({ code: 'WARC_TRUNCATED' });
      const info = await replayInfo(archive, `${SITE}/video.bin`);
      expect(info).toMatchObject({
        kind: 'archived',
        status: 200,
        mime: 'application/octet-stream',
        bodyBytes: BIG,
        capture: { id: video!.id, url: `${SITE}/video.bin`, ts: '20240301100004', type: 'response', fuzzy: null },
        location: null,
      });
      expect(info.kind === 'archived' && info.headers).toContainEqual(['Content-Length', String(BIG)]);
    } finally {
      archive.close();
    }
  });
});
