/** Byte counts in binary units: the CLI's one decimal below 10, the Heritrix report's whole units. */
import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../core/formats/byte-size.ts';

describe('formatBytes', () => {
  it('keeps one decimal below 10 units, none above', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(3.25 * 1024 * 1024)).toBe('3.3 MiB');
    expect(formatBytes(14 * 1024 ** 3)).toBe('14 GiB');
    expect(formatBytes(2048 * 1024 ** 4)).toBe('2048 TiB');
  });

  it('rounds to whole units for the crawl report', () => {
    expect(formatBytes(2.5 * 1024, 0)).toBe('3 KiB');
    expect(formatBytes(1536 * 1024, 0)).toBe('2 MiB');
    expect(formatBytes(500, 0)).toBe('500 B');
  });
});
