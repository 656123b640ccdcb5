/**
 * The units a crawl setting is measured in, and how a value is written in them: parsed from a
 * flag (`1GiB`, `30s`, `500ms`), shown in help (`1GB`, `5min`) and scaled to a form field's unit
 * (MB, minutes). One home for these, so the CLI, the help text and the app agree on what "MB"
 * means. Plain code, no node:* and no imports: the renderer imports it too.
 */

/** What a number setting counts, in the unit it is stored in. */
export type SettingUnit = 'count' | 'factor' | 'bytes' | 'seconds' | 'milliseconds' | 'kbps';

/**
 * A form field's unit: how many stored units one shown unit is (`MB` of a bytes setting is
 * 1,000,000, `min` of a seconds setting is 60). Decimal MB/GB and binary MiB/GiB both exist, so
 * each field shows its default as a round number in its own unit (1e9 bytes is 1000 MB, not
 * 953.67 "MB").
 */
export const FIELD_UNITS = {
  '': 1,
  ms: 1,
  s: 1,
  min: 60,
  'KB/s': 1,
  KB: 1000,
  MB: 1000 ** 2,
  GB: 1000 ** 3,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
} as const;
export type FieldUnit = keyof typeof FIELD_UNITS;

const BYTE_POWERS: Record<string, [base: number, pow: number]> = {
  '': [1, 0], k: [1000, 1], m: [1000, 2], g: [1000, 3], t: [1000, 4], ki: [1024, 1], mi: [1024, 2], gi: [1024, 3], ti: [1024, 4],
};
const SECONDS_IN: Record<string, number> = { ms: 0.001, s: 1, m: 60, min: 60, h: 3600, d: 86400 };

/** A value read from text, or why it could not be. */
export type Parsed = { value: number } | { problem: string };

/** Sizes like 1GB (10^9), 500MiB (2^20 × 500), 1e9, 1024: decimal and binary prefixes, B optional. */
export function parseBytes(text: string): Parsed {
  const m = /^\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([kmgt]?i?b?)?\s*$/i.exec(text);
  if (!m) return { problem: `not a size: ${JSON.stringify(text)} (use e.g. 500MB, 1GiB, 1048576)` };
  const unit = (m[2] ?? '').toLowerCase().replace(/b$/, '');
  const p = BYTE_POWERS[unit];
  if (!p) return { problem: `unknown size unit in ${JSON.stringify(text)}` };
  return { value: Math.round(Number(m[1]) * p[0] ** p[1]) };
}

/** A duration like 30, 30s, 500ms, 5min, 2h, 1d, in seconds (a bare number is seconds) or ms. */
function parseDuration(text: string, unit: 'seconds' | 'milliseconds'): Parsed {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)?\s*$/i.exec(text);
  if (!m) return { problem: `not a duration: ${JSON.stringify(text)} (use e.g. ${unit === 'seconds' ? '30, 30s, 5min, 2h' : '500, 500ms, 2s'})` };
  const given = m[2]?.toLowerCase();
  const seconds = Number(m[1]) * (given ? SECONDS_IN[given]! : unit === 'seconds' ? 1 : 0.001);
  // Rounded to what binary fractions add (0.1 s is 100 ms, not 100.00000000000001).
  return { value: Number((unit === 'seconds' ? seconds : seconds * 1000).toPrecision(12)) };
}

/** A flag's text as a number in the setting's unit: whole when `whole`, never negative. */
export function parseInUnit(text: string, unit: SettingUnit, whole: boolean): Parsed {
  if (unit === 'bytes') return parseBytes(text);
  if (unit === 'seconds' || unit === 'milliseconds') {
    const p = parseDuration(text, unit);
    if ('value' in p && whole && !Number.isInteger(p.value)) return { problem: `expects a whole number of ${unit}, not ${JSON.stringify(text)}` };
    return p;
  }
  const n = Number(text);
  if (whole) return /^\d+$/.test(text.trim()) && Number.isSafeInteger(n) ? { value: n } : { problem: `expects a whole number ≥ 0, not ${JSON.stringify(text)}` };
  return text.trim() !== '' && Number.isFinite(n) && n >= 0 ? { value: n } : { problem: `expects a number ≥ 0, not ${JSON.stringify(text)}` };
}

/** The largest unit in which `n` is a whole number, of those given largest first. */
function exactIn(n: number, units: readonly [string, number][]): string | null {
  for (const [name, size] of units) if (n !== 0 && n % size === 0) return `${n / size}${name}`;
  return null;
}

/** A value as a flag would take it, in its unit: 1GiB, 1GB, 256KiB, 5min, 1d, 3s. parseInUnit reads it back. */
export function formatInUnit(n: number, unit: SettingUnit): string {
  if (unit === 'bytes') {
    const binary = exactIn(n, [['TiB', 1024 ** 4], ['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]]);
    const decimal = exactIn(n, [['TB', 1e12], ['GB', 1e9], ['MB', 1e6], ['KB', 1e3]]);
    // The shorter number wins: 1GB over 976562.5KiB, 1GiB over 1073741.824KB.
    const shorter = [binary, decimal].filter((s): s is string => s !== null).sort((a, b) => parseFloat(a) - parseFloat(b))[0];
    return shorter ?? String(n);
  }
  if (unit === 'seconds' || unit === 'milliseconds') {
    const ms = unit === 'seconds' ? n * 1000 : n;
    return exactIn(ms, [['d', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000]]) ?? (unit === 'seconds' ? `${n}s` : `${n}ms`);
  }
  return String(n);
}

/** A stored value in a field's unit (bytes → MB), rounded to what the field shows. */
export function toFieldUnit(n: number, unit: FieldUnit): number {
  const scale = FIELD_UNITS[unit];
  return scale === 1 ? n : Math.round((n / scale) * 100) / 100;
}

/**
 * A number typed in a field's unit, as the value to store. A whole-number setting is rounded to
 * its unit (0.5 MB is 500000 bytes), except when that would turn a value that is not 0 into 0:
 * 0.004 min is then kept as 0.24 s, which the settings check refuses, never 0 ("no limit").
 */
export function fromFieldUnit(n: number, unit: FieldUnit, whole: boolean): number {
  const scale = FIELD_UNITS[unit];
  if (scale === 1 || !Number.isFinite(n)) return n;
  const stored = n * scale;
  const rounded = Math.round(stored);
  if (!whole) return Number(stored.toPrecision(12));
  return rounded === 0 && stored !== 0 ? stored : rounded;
}
