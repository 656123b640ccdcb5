/**
 * The validator for crawl settings coming from the UI: a partial CrawlSettings, every field
 * checked for its type and size. What the values mean (bounds of each number, a seed that
 * parses, a regex that compiles, delays that make sense) is the core's settingsProblems, which
 * reports every problem tagged with its field: so a number field here takes any number, or the
 * short text the user typed into it when it is not one, and the core says what is wrong with it.
 *
 * `robotsFile` is deliberately not accepted from the renderer: it names a file the main process
 * would read. The UI sends the custom robots.txt as text (`customRobots`) and the app writes it
 * into the crawl directory. `dedupFrom` (paths of earlier crawls or CDXJ files to read) is kept
 * from the renderer for the same reason, and so is `browser.path` (an executable it would run).
 */
import type { CrawlSettings, HostOverride, ScopeRuleConfig } from './settings.ts';
import { settingRow, SETTING_ROWS, type NotFromAppKey, type SettingRow, type StructuredRow } from './settings-registry.ts';
import { arr, bool, obj, oneOf, optional, PayloadError, str, type Validator } from './validate.ts';

/** What the app may send: every setting whose row lets the app set it. */
export type SettingsPatch = Partial<Omit<CrawlSettings, NotFromAppKey>>;

/** A number as typed: any number, or up to 100 characters of text that is not one (reported by the core). */
const typed = (): Validator<number> => (input, path) => {
  if (typeof input === 'number') return input;
  if (typeof input === 'string' && input.length <= 100) return input as unknown as number;
  throw new PayloadError(path, 'expected a number');
};

const decision = oneOf(['ACCEPT', 'REJECT'] as const);
const RULE_SHAPES = {
  'on-host': obj({ type: oneOf(['on-host'] as const), hosts: arr(str({ max: 253 }), { max: 10_000 }), decision }),
  'on-domain': obj({ type: oneOf(['on-domain'] as const), domains: arr(str({ max: 253 }), { max: 10_000 }), decision }),
  regex: obj({ type: oneOf(['regex'] as const), pattern: str({ max: 2000 }), decision }),
  'hops-path': obj({ type: oneOf(['hops-path'] as const), pattern: str({ max: 2000 }), decision }),
  'file-type': obj({
    type: oneOf(['file-type'] as const),
    presets: optional(arr(oneOf(['images', 'audio', 'video', 'documents'] as const), { max: 4 })),
    extensions: optional(arr(str({ max: 20 }), { max: 1000 })),
    decision,
  }),
  mime: obj({ type: oneOf(['mime'] as const), pattern: str({ max: 2000 }), decision }),
  'content-length': obj({ type: oneOf(['content-length'] as const), over: optional(typed()), under: optional(typed()), decision }),
};

/** One extra scope rule: the validator is picked by its `type`. */
const scopeRule: Validator<ScopeRuleConfig> = (input, where) => {
  const type = (input as { type?: unknown } | null)?.type;
  const v = typeof type === 'string' && Object.hasOwn(RULE_SHAPES, type) ? RULE_SHAPES[type as keyof typeof RULE_SHAPES] : null;
  if (!v) throw new PayloadError(`${where}.type`, `expected one of ${Object.keys(RULE_SHAPES).join(', ')}`);
  return v(input, where) as ScopeRuleConfig;
};

/** A per-host override: host or domain, and any of the settings its row names, each checked as that setting is. */
function hostOverride(row: StructuredRow): Validator<HostOverride> {
  const shape: Record<string, Validator<unknown>> = { host: optional(str({ max: 253 })), domain: optional(str({ max: 253 })) };
  for (const key of row.fields ?? []) shape[key] = optional(valueValidator(settingRow(key)!));
  return obj(shape) as unknown as Validator<HostOverride>;
}

/** The type-and-size check of one setting's value, from its row. */
function valueValidator(row: SettingRow): Validator<unknown> {
  switch (row.type) {
    case 'number':
      return typed();
    case 'string':
      return str({ max: row.maxLength });
    case 'boolean':
      return bool();
    case 'choice':
      return oneOf(row.choices);
    case 'list':
      return arr(str({ max: row.itemMaxLength }), { max: row.maxItems });
    case 'structured':
      return arr<unknown>(row.shape === 'host-override' ? hostOverride(row) : scopeRule, { max: row.maxItems });
  }
}

const appRows = SETTING_ROWS.filter((r) => r.app === true);
/** Top-level settings, and each nested group (browser) as one object of its rows. */
const FIELDS: Record<string, Validator<unknown>> = {};
const groups = new Map<string, Record<string, Validator<unknown>>>();
for (const row of appRows) {
  const [top, sub] = row.key.split('.') as [string, string | undefined];
  const v = row.optional ? optional(valueValidator(row)) : valueValidator(row);
  if (sub === undefined) FIELDS[top] = v;
  else groups.set(top, { ...groups.get(top), [sub]: v });
}
for (const [top, shape] of groups) FIELDS[top] = obj(shape);

export const SETTINGS_FIELDS: readonly (keyof SettingsPatch)[] = Object.keys(FIELDS) as (keyof SettingsPatch)[];

/** Why the app may not send a setting it names, or "unknown setting". */
function refusal(key: string): string {
  const row = settingRow(key);
  return row && row.key === key && row.app !== true ? row.app.refused : 'unknown setting';
}

export function settingsPatch(): Validator<SettingsPatch> {
  return (input, path) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new PayloadError(path, 'expected an object of settings');
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      const where = path ? `${path}.${key}` : key;
      if (!Object.hasOwn(FIELDS, key)) throw new PayloadError(where, refusal(key));
      if (value === undefined) continue;
      out[key] = FIELDS[key]!(value, where);
    }
    return out as SettingsPatch;
  };
}
