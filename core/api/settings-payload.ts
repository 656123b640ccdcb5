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
import { DEDUP_MODE_NAMES, POLITENESS_PRESET_NAMES, ROBOTS_POLICY_NAMES, SCOPE_PRESET_NAMES } from './settings.ts';
import type { CrawlSettings, HostOverride, ScopeRuleConfig } from './settings.ts';
import { arr, bool, obj, oneOf, optional, PayloadError, str, type Validator } from './validate.ts';

export type SettingsPatch = Partial<Omit<CrawlSettings, 'robotsFile' | 'dedupFrom'>>;


/** A number as typed: any number, or up to 100 characters of text that is not one (reported by the core). */
const typed = (): Validator<number> => (input, path) => {
  if (typeof input === 'number') return input;
  if (typeof input === 'string' && input.length <= 100) return input as unknown as number;
  throw new PayloadError(path, 'expected a number');
};
const count = typed;
const ms = typed;
const line = (max = 1000) => str({ max });
const patterns = () => arr(str({ max: 2000 }), { max: 1000 });

const override: Validator<HostOverride> = obj({
  host: optional(str({ max: 253 })),
  domain: optional(str({ max: 253 })),
  minDelayMs: optional(ms()),
  maxDelayMs: optional(ms()),
  delayFactor: optional(typed()),
  perHost: optional(typed()),
  robots: optional(oneOf(ROBOTS_POLICY_NAMES)),
  userAgent: optional(line()),
  maxKbpsPerHost: optional(count()),
});

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
  'content-length': obj({ type: oneOf(['content-length'] as const), over: optional(count()), under: optional(count()), decision }),
};

/** One extra scope rule: the validator is picked by its `type`. */
const scopeRule: Validator<ScopeRuleConfig> = (input, where) => {
  const type = (input as { type?: unknown } | null)?.type;
  const v = typeof type === 'string' && Object.hasOwn(RULE_SHAPES, type) ? RULE_SHAPES[type as keyof typeof RULE_SHAPES] : null;
  if (!v) throw new PayloadError(`${where}.type`, `expected one of ${Object.keys(RULE_SHAPES).join(', ')}`);
  return v(input, where) as ScopeRuleConfig;
};

const FIELDS: { [K in keyof Required<SettingsPatch>]: Validator<CrawlSettings[K]> } = {
  name: str({ max: 200 }),
  seeds: arr(str({ max: 8192 }), { max: 100_000 }),
  scope: oneOf(SCOPE_PRESET_NAMES),
  include: patterns(),
  exclude: patterns(),
  maxHops: typed(),
  transHops: typed(),
  maxPathRepeats: typed(),
  maxPathDepth: typed(),
  maxUrlLength: typed(),
  politeness: oneOf(POLITENESS_PRESET_NAMES),
  concurrency: typed(),
  perHost: typed(),
  delayFactor: typed(),
  minDelayMs: ms(),
  maxDelayMs: ms(),
  crawlDelayCapS: typed(),
  maxKbpsPerHost: count(),
  overrides: arr(override, { max: 1000 }),
  scopeRules: arr(scopeRule, { max: 1000 }),
  queuePolicy: str({ max: 40 }),
  robots: oneOf(ROBOTS_POLICY_NAMES),
  candidateAgents: arr(line(), { max: 100 }),
  masquerade: bool(),
  robotsTtlS: count(),
  sitemaps: bool(),
  userAgent: line(),
  operator: line(),
  connectTimeoutS: count(),
  headersTimeoutS: count(),
  idleTimeoutS: count(),
  fetchTimeoutS: count(),
  maxBodyBytes: count(),
  maxHeaderBytes: count(),
  maxExtractBytes: count(),
  maxLinksPerDocument: count(),
  maxRetries: typed(),
  retryDelayS: typed(),
  retryBackoff: oneOf(['exponential', 'fixed'] as const),
  browser: obj({ enabled: bool(), tabs: typed() }),
  warcMaxBytes: count(),
  warcPrefix: str({ max: 100 }),
  dedup: oneOf(DEDUP_MODE_NAMES),
  limitPages: count(),
  limitUris: count(),
  limitBytes: count(),
  limitTimeS: count(),
  maxTotalWarcBytes: count(),
  minFreeDiskBytes: count(),
};

export const SETTINGS_FIELDS: readonly (keyof SettingsPatch)[] = Object.keys(FIELDS) as (keyof SettingsPatch)[];

export function settingsPatch(): Validator<SettingsPatch> {
  return (input, path) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new PayloadError(path, 'expected an object of settings');
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      const v = (FIELDS as Record<string, Validator<unknown>>)[key];
      const where = path ? `${path}.${key}` : key;
      if (!v || !Object.hasOwn(FIELDS, key)) throw new PayloadError(where, key === 'robotsFile' ? 'send the custom robots.txt as customRobots text' : key === 'dedupFrom' ? 'not settable from the app' : 'unknown setting');
      if (value === undefined) continue;
      out[key] = v(value, where);
    }
    return out as SettingsPatch;
  };
}
