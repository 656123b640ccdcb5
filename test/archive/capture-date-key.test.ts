/**
 * capture-date-key.ts: a WARC-Date that is the ISO form of the row's 14-digit timestamp, with
 * three digits of milliseconds or none, is stored as the milliseconds (2 bytes, or none); anything else stays its
 * text; every date reads back exactly as written.
 */
import { describe, expect, it } from 'vitest';
import { dateFromKey, dateKey } from '../../core/archive/capture-date-key.ts';

const ts = '20240305102030';

describe('dateKey / dateFromKey', () => {
  it('stores the milliseconds of a date whose rest is the timestamp (-1 for none), and reads the date back', () => {
    const cases: [string, number[]][] = [
      ['2024-03-05T10:20:30.123Z', [0, 123]],
      ['2024-03-05T10:20:30.000Z', [0, 0]],
      ['2024-03-05T10:20:30.007Z', [0, 7]],
      ['2024-03-05T10:20:30.999Z', [3, 231]],
      ['2024-03-05T10:20:30.256Z', [1, 0]],
      ['2024-03-05T10:20:30Z', []],
    ];
    for (const [date, bytes] of cases) {
      expect(dateKey(date, ts), date).toEqual(Buffer.from(bytes));
      expect(dateFromKey(Buffer.from(bytes), ts)).toBe(date);
    }
  });

  it('keeps any other date as its text', () => {
    const others = [
      '2024-03-05T10:20:31.123Z', // another second than ts
      '2024-03-05T10:20:30.12Z', // two digits
      '2024-03-05T10:20:30.123456Z', // microseconds
      '2024-03-05T10:20:30.123+00:00',
      '2024-03-05 10:20:30Z',
      '2024-03-05T10:20:30.123z',
      'Tue, 05 Mar 2024 10:20:30 GMT',
      '',
    ];
    for (const d of others) {
      expect(dateKey(d, ts), d).toBe(d);
      expect(dateFromKey(dateKey(d, ts), ts)).toBe(d);
    }
    expect(dateKey('2024-03-05T10:20:30Z', null)).toBe('2024-03-05T10:20:30Z');
    expect(dateKey(null, ts)).toBeNull();
    expect(dateFromKey(null, ts)).toBeNull();
  });
});
