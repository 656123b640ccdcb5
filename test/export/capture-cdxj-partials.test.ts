/**
 * The CDXJ lines of an export (core/export/capture-cdxj.ts) leave out a 206 partial response of a
 * URL whose whole 200 is exported too (issue 37): ReplayWeb.page would index the partial, which
 * starts at byte 0, as a capture and may serve it, with its own Content-Length, for a request
 * without Range. A 206 with no whole record beside it keeps its line; the WARC keeps both records.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureCdxjLines } from '../../core/export/capture-cdxj.ts';
import { archiveWarcs } from '../../core/export/archive-warcs.ts';
import { archiveOf, removeTempDirs, tempDir } from '../replay/archive-fixture.ts';
import { writeWarc } from '../replay/warc-fixture.ts';

afterAll(removeTempDirs);

describe('CDXJ of an export with partial media records', () => {
  it('lists the whole 200 and not the 206 beside it; a lone 206 stays', async () => {
    const file = path.join(tempDir('trove-warc-'), 'media.warc.gz');
    const date = '2021-01-01T00:00:00Z';
    const video: [string, string][] = [['Content-Type', 'video/mp4']];
    await writeWarc(file, [
      { url: 'http://m.test/v.mp4', date, status: 206, statusText: 'Partial Content', headers: [...video, ['Content-Range', 'bytes 0-9/10']], body: Buffer.from('0123456789') },
      { url: 'http://m.test/v.mp4', date: '2021-01-01T00:00:05Z', headers: video, body: Buffer.from('0123456789') },
      { url: 'http://m.test/w.mp4', date, status: 206, statusText: 'Partial Content', headers: [...video, ['Content-Range', 'bytes 0-3/10']], body: Buffer.from('0123') },
    ]);
    const { archive, report } = await archiveOf([file]);
    try {
      expect(report.problems).toEqual([]);
      const lines = [...captureCdxjLines(archive, archiveWarcs(archive))].map((l) => JSON.parse(l.slice(l.indexOf('{'))) as { url: string; status: string });
      expect(lines.map((l) => `${l.status} ${l.url}`).sort()).toEqual(['200 http://m.test/v.mp4', '206 http://m.test/w.mp4']);
    } finally {
      archive.close();
    }
  });
});
