/**
 * Byte counts for people, in binary units (`512 B`, `3.2 MiB`, `14 GiB`): the CLI's progress and
 * summary lines and the Heritrix-style crawl report. (The renderer has its own, in decimal
 * `kB`/`MB` like the New crawl form's fields, in renderer/src/lib/format.ts: it may import only
 * types from core.)
 */

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/**
 * `n` bytes in the largest binary unit that keeps the number at least 1, rounded to a whole
 * number, with `smallFractionDigits` decimals kept below 10 (`3.2 MiB` by default; 0 gives the
 * report's `3 MiB`).
 */
export function formatBytes(n: number, smallFractionDigits = 1): string {
  if (n < 1024) return `${n} B`;
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? smallFractionDigits : 0)} ${UNITS[i]}`;
}
