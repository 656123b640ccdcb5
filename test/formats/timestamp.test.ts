/** 14- and 17-digit UTC timestamps, one rule for the index, WARC file names, crawl.log and exports. */
import { describe, expect, it } from 'vitest';
import { isFourDigitYear, timestamp14, timestamp17 } from '../../core/formats/timestamp.ts';
import { warcFileName } from '../../core/warc/warc-file-name.ts';
import { formatCrawlLogLine } from '../../core/crawl/crawl-log.ts';

describe('timestamps', () => {
  const d = new Date('2026-01-02T03:04:05.006Z');

  it('cuts the UTC digits to 14 or 17', () => {
    expect(timestamp14(d)).toBe('20260102030405');
    expect(timestamp17(d)).toBe('20260102030405006');
    expect(timestamp17(d.getTime())).toBe('20260102030405006');
  });

  it('is what WARC file names and crawl.log timings carry', () => {
    expect(warcFileName({ prefix: 'T', date: d, serial: 1, pid: 1, host: 'h' })).toContain('-20260102030405006-');
    const line = formatCrawlLogLine({ time: d, status: 200, size: 1, url: 'http://h/', hopsPath: '', via: null, mime: 'text/html', slot: 0, fetchStart: d.getTime(), durationMs: 7 });
    expect(line).toContain('20260102030405006+7');
  });

  it('refuses years a fixed width cannot hold, where a file name needs it', () => {
    const far = new Date(Date.UTC(12026, 0, 1));
    expect(isFourDigitYear(d)).toBe(true);
    expect(isFourDigitYear(far)).toBe(false);
    expect(() => warcFileName({ prefix: 'T', date: far, serial: 1, pid: 1, host: 'h' })).toThrow(/out of range/);
  });
});
