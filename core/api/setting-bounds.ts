/**
 * What is wrong with a number setting's value, from its registry row's bounds: the one wording
 * the core's settingsProblems uses and the app's fields use, the latter in the field's own unit
 * (a Download limit of −1 MB is "not −1 MB", never "not −1000000"). Plain code with no imports
 * from outside core/api: the renderer imports it.
 */
import { FIELD_UNITS, type FieldUnit } from './setting-units.ts';

/** How a number setting may be: bounds, whole or not, and what 0 means when it means something. */
export interface NumberRule {
  min: number;
  max: number;
  whole: boolean;
  zero?: string;
  /** Its stored unit, named in a message about a field shown in another unit. */
  unit?: string;
}

function shown(v: unknown): string {
  if (typeof v === 'string') return v.trim() === '' ? 'empty' : JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return String(v);
}

const big = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 10 });
const STORED_UNIT_WORD: Record<string, string> = { bytes: 'byte', seconds: 's', milliseconds: 'ms' };

/**
 * The problem with one stored value, or null when it is accepted as it is. Given `field`, the
 * message is in that unit (the value the field shows, its bounds converted), else in the stored one.
 */
export function numberProblem(rule: NumberRule, v: unknown, field?: FieldUnit): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return `must be a number, not ${shown(v)}`;
  const scale = field ? FIELD_UNITS[field] : 1;
  const zero = rule.zero && rule.min === 0 ? ` (0 means ${rule.zero})` : '';
  if (scale === 1) {
    if (rule.whole && !Number.isInteger(v)) return `must be a whole number, not ${v}`;
    if (v < rule.min) return `must be ${rule.min} or more${zero}, not ${v}`;
    if (v > rule.max) return `must be at most ${big(rule.max)}, not ${big(v)}`;
    return null;
  }
  const inField = (n: number) => `${big(Number((n / scale).toPrecision(10)))} ${field}`;
  if (v < rule.min) return `must be ${inField(rule.min)} or more${zero}, not ${inField(v)}`;
  if (v > rule.max) return `must be at most ${inField(rule.max)}, not ${inField(v)}`;
  if (rule.whole && !Number.isInteger(v)) {
    // A value below one stored unit that is not 0: 0.004 min is 0.24 s, neither a limit nor none.
    const one = `1 ${STORED_UNIT_WORD[rule.unit ?? ''] ?? rule.unit ?? 'unit'}`;
    // The smallest value the field shows (two decimals) that is at least one stored unit: 0.02 min.
    const least = `${big(Math.ceil((Math.max(1, rule.min) / scale) * 100) / 100)} ${field}`;
    return Math.abs(v) < 1 ? `${inField(v)} is less than ${one}: give at least ${least}${rule.zero ? `, or 0 for ${rule.zero}` : ''}` : `must be a whole number of ${rule.unit ?? 'units'}, not ${inField(v)}`;
  }
  return null;
}
