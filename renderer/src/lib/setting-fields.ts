/**
 * The settings registry as the form and the Resume dialog use it: a setting's label, help and
 * field unit, and the problem with a typed value told in that unit (a Download limit of −1 MB is
 * "not −1 MB"). The registry, the units and the bounds are plain core/api modules the renderer
 * imports as they are, so no label, unit or bound is written a second time here.
 */
import { settingRow, type SettingRow } from '../../../core/api/settings-registry.ts';
import { FIELD_UNITS, type FieldUnit } from '../../../core/api/setting-units.ts';
import { numberProblem } from '../../../core/api/setting-bounds.ts';

/** A setting's row; a key that is not a setting is a programming error. */
export function rowOf(key: string): SettingRow {
  const row = settingRow(key);
  if (!row) throw new Error(`not a setting: ${key}`);
  return row;
}

/** The unit a number setting's field shows (MB, min), '' for a plain count. */
export function fieldUnitOf(row: SettingRow): FieldUnit {
  return row.type === 'number' ? (row.field ?? '') : '';
}

/** How many stored units one shown unit is (bytes in an MB). */
export function scaleOf(row: SettingRow): number {
  return FIELD_UNITS[fieldUnitOf(row)];
}

/** The problem with a number setting's stored value, in its field's unit; null for other settings or a good value. */
export function fieldProblem(key: string, value: unknown): string | null {
  const row = settingRow(key);
  if (!row || row.type !== 'number') return null;
  return numberProblem(row, value, fieldUnitOf(row));
}

/**
 * The form's words for a problem's key: a setting's label, an override's field as
 * "Override 2, Min delay", and a field the app sends in a setting's place (customRobots) by that setting's label.
 */
export function labelOf(key: string): string | null {
  const item = /^(\w+)\[(\d+)\](?:\.(\w+))?$/.exec(key);
  if (item) {
    const list = settingRow(item[1]!);
    const field = item[3] ? (settingRow(item[3])?.label ?? item[3]) : '';
    const name = list?.type === 'structured' ? list.itemLabel : (list?.label ?? item[1]);
    return `${name} ${Number(item[2]) + 1}${field ? `, ${field}` : ''}`;
  }
  return settingRow(key)?.label ?? null;
}
