// The renderer's byte figures are decimal, labelled as such (kB, MB, GB: 1 MB = 1,000,000 bytes),
// as the New crawl form's MB fields are; they used to divide by 1024 and say "KB"/"MB".
import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../renderer/src/lib/format.ts';

describe('formatBytes (renderer)', () => {
  it('uses decimal units with their SI names', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1000)).toBe('1.00 kB');
    expect(formatBytes(4000)).toBe('4.00 kB');
    expect(formatBytes(1024)).toBe('1.02 kB');
    expect(formatBytes(12_345_678)).toBe('12.3 MB');
    expect(formatBytes(1e9)).toBe('1.00 GB');
    expect(formatBytes(250e9)).toBe('250 GB');
    expect(formatBytes(3.5e12)).toBe('3.50 TB');
  });

  it('agrees with the form: a 1000 MB limit reads as 1000 MB of bytes, 1 GB', () => {
    expect(formatBytes(1000 * 1000 ** 2)).toBe('1.00 GB');
    expect(formatBytes(500 * 1000 ** 2)).toBe('500 MB');
  });

  it('shows a missing figure as a dash', () => {
    expect(formatBytes(null)).toBe('–');
    expect(formatBytes(undefined)).toBe('–');
    expect(formatBytes(Number.NaN)).toBe('–');
  });
});
