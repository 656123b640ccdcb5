import { describe, expect, it } from 'vitest';
import { toFtsQuery } from '../../core/archive/capture-text-search.ts';
import { isTimestamp14, padTimestamp, timestampFromWarcDate, timestampSeconds } from '../../core/archive/capture-timestamp.ts';

describe('capture timestamps', () => {
  it('pads partial timestamps to the start of the period', () => {
    expect(padTimestamp('2024')).toBe('20240101000000');
    expect(padTimestamp('202403')).toBe('20240301000000');
    expect(padTimestamp('20240305')).toBe('20240305000000');
    expect(padTimestamp('20240305102030')).toBe('20240305102030');
    expect(() => padTimestamp('24')).toThrow(expect.objectContaining({ code: 'CAPTURE_BAD_TIMESTAMP' }));
    expect(() => padTimestamp('202403051020301')).toThrow(expect.objectContaining({ code: 'CAPTURE_BAD_TIMESTAMP' }));
  });

  it('converts between WARC-Date, 14 digits and seconds', () => {
    expect(timestampFromWarcDate('2024-03-05T10:20:30Z')).toBe('20240305102030');
    expect(timestampFromWarcDate('2024-03-05T10:20:30.123456Z')).toBe('20240305102030');
    expect(timestampFromWarcDate('yesterday')).toBeNull();
    expect(timestampSeconds('19700101000001')).toBe(1);
    expect(timestampSeconds('20240305102030')).toBe(Date.UTC(2024, 2, 5, 10, 20, 30) / 1000);
    expect(isTimestamp14('20240305102030')).toBe(true);
    expect(isTimestamp14('2024-03-05')).toBe(false);
  });
});

describe('toFtsQuery', () => {
  it('quotes each word, keeps a trailing * as a prefix search, drops punctuation-only words', () => {
    expect(toFtsQuery('covid-19 vacc*')).toBe('"covid-19" "vacc"*');
    // A quoted span is one phrase; an unpaired quote is a character of its word.
    expect(toFtsQuery('say "hi" OR (x')).toBe('"say" "hi" "OR" "(x"');
    expect(toFtsQuery('say "hi OR (x')).toBe('"say" """hi" "OR" "(x"');
    expect(toFtsQuery('  - * !! ')).toBe('');
    expect(toFtsQuery('北京 新闻')).toBe('"北京" "新闻"');
  });
});
