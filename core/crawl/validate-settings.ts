/**
 * Settings checks before anything is written. `settingsProblems` lists *every* problem, each
 * tagged with the setting's key (`limitPages`, `overrides[0].host`, `include`) and told in plain
 * words, so the app can show each one next to its field and the CLI can name its own flag for
 * the key. The checks are read from the settings registry's rows (bounds, choices, patterns,
 * order rules), walked in their order, plus the checks a row names that need the rest of the
 * core (seed URLs, regexes, extra scope rules, overrides, paths); no setting is listed here.
 * Nothing is clamped or defaulted: a value is accepted as it is or reported.
 * `validateSettings` is the throwing form (SETTINGS_INVALID, the CLI exits 2) used by a crawl
 * start, so a bad value never half-starts a crawl.
 */
import fs from 'node:fs';
import { isTroveError, TroveError } from '../errors.ts';
import { captureModeOf, isOneOf } from '../api/settings.ts';
import type { CrawlSettings, HostOverride, ScopeRuleConfig } from '../api/settings.ts';
import { settingRow, SETTING_ROWS, type NumberRow, type SettingRow, type StructuredRow } from '../api/settings-registry.ts';
import { numberProblem, type NumberRule } from '../api/setting-bounds.ts';
import { normalizeUrl } from '../scope/normalize-url.ts';
import { parseCookiesTxt } from '../formats/cookies-txt.ts';
import { buildScope, scopeSettingsFrom } from '../scope/decide-rules.ts';
import { compileRegex } from '../scope/standard-rules.ts';
import { buildExtraRule, compileAfterFetchRules, isAfterFetchRule } from '../scope/extra-rules.ts';

export { numberProblem };

/** One thing wrong with the settings: which setting, and what, in words without flag names. */
export interface SettingProblem {
  /** The CrawlSettings key, or a path into a list (`overrides[2].minDelayMs`, `scopeRules[0]`). */
  key: string;
  message: string;
}

const ROWS = SETTING_ROWS as readonly SettingRow[];

/** Every top-level number setting's rule, from its registry row (the IPC gate only checks types). */
export const NUMBER_RULES: { readonly [K in keyof CrawlSettings]?: NumberRule } = Object.fromEntries(
  ROWS.filter((r): r is NumberRow => r.type === 'number' && !r.key.includes('.')).map((r) => [r.key, r]),
);

function shown(v: unknown): string {
  if (typeof v === 'string') return v.trim() === '' ? 'empty' : JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return String(v);
}

/** A setting's value by its key (`browser.tabs` reads inside its group); undefined when its group is absent. */
function valueAt(s: CrawlSettings, key: string): unknown {
  const [top, sub] = key.split('.') as [string, string | undefined];
  const v = (s as unknown as Record<string, unknown>)[top];
  return sub === undefined ? v : typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[sub] : undefined;
}

/** What is wrong with one value by its row alone (type, bounds, choices, pattern), or null. */
export function rowProblem(row: SettingRow, v: unknown): string | null {
  switch (row.type) {
    case 'number':
      return numberProblem(row, v);
    case 'boolean':
      return typeof v === 'boolean' ? null : 'must be true or false';
    case 'choice':
      return isOneOf(row.choices, v) ? null : `must be one of ${row.choices.join(', ')}, not ${shown(v)}`;
    case 'string':
      if (v === undefined && row.optional) return null;
      if (typeof v !== 'string') return `must be text, not ${shown(v)}`;
      if (row.line && (v.trim() === '' || /[\r\n]/.test(v))) return 'must be one non-empty line';
      if (row.pattern && !new RegExp(row.pattern.regex).test(v)) return `${row.pattern.message}, not ${shown(v)}`;
      if (v.length > row.maxLength) return `must be at most ${row.maxLength} characters`;
      return null;
    case 'list':
    case 'structured':
      return v === undefined || Array.isArray(v) ? null : 'must be a list';
  }
}

/** A host name or IP address as an override names it (a leading "." means "and its subdomains"). */
function hostProblem(raw: string): string | null {
  const h = raw.trim().replace(/^\./, '');
  if (h === '') return 'give a host name, e.g. example.org';
  let ascii: string;
  try {
    ascii = new URL(`http://${h}/`).hostname;
  } catch {
    return `${shown(raw)} is not a host name`;
  }
  const ok = /^\[[0-9a-f:.]+\]$/.test(ascii) || /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.?$/.test(ascii);
  return ok && ascii.replace(/\.$/, '') === h.toLowerCase().replace(/\.$/, '') ? null : `${shown(raw)} is not a host name`;
}

/** A `notBelow` rule between two number settings (the maximum delay under the minimum), read from `values`. */
function orderProblem(row: SettingRow, values: Record<string, unknown>): string | null {
  if (row.type !== 'number' || !row.notBelow) return null;
  const v = values[row.key.split('.').pop()!];
  const other = values[row.notBelow.key];
  if (typeof v !== 'number' || typeof other !== 'number' || v >= other) return null;
  return row.notBelow.message.replace('{value}', String(v)).replace('{other}', String(other));
}

/** An override: host or domain, then each field it sets checked by that setting's own row. */
function overrideProblems(row: StructuredRow, o: HostOverride, at: string, out: SettingProblem[]): void {
  const hasHost = typeof o.host === 'string' && o.host.trim() !== '';
  const hasDomain = typeof o.domain === 'string' && o.domain.trim() !== '';
  if (!hasHost && !hasDomain) out.push({ key: `${at}.host`, message: 'give the host (or domain) this override applies to' });
  if (hasHost && hasDomain) out.push({ key: `${at}.host`, message: 'give a host or a domain, not both' });
  if (hasHost) {
    const p = hostProblem(o.host!);
    if (p) out.push({ key: `${at}.host`, message: p });
  }
  if (hasDomain) {
    const p = hostProblem(o.domain!);
    if (p) out.push({ key: `${at}.domain`, message: p.replace('host name', 'domain') });
  }
  const values = o as unknown as Record<string, unknown>;
  for (const key of row.fields ?? []) {
    if (values[key] === undefined) continue;
    const p = rowProblem(settingRow(key)!, values[key]) ?? orderProblem(settingRow(key)!, values);
    if (p) out.push({ key: `${at}.${key}`, message: p });
  }
}

/** Why a pattern does not compile, in the engine's words without its repeat of the pattern. */
function regexReason(pattern: string): string | null {
  if (typeof pattern !== 'string' || pattern === '') return 'an empty pattern matches everything: remove the line';
  try {
    new RegExp(pattern);
    return null;
  } catch (err) {
    const why = (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
    return `/${pattern}/ is not a valid regular expression (${why.charAt(0).toLowerCase()}${why.slice(1)})`;
  }
}

function problemOf(err: unknown, key: string): SettingProblem {
  if (!isTroveError(err)) throw err;
  return { key, message: err.message };
}

/**
 * The checks a row names that need more than the row (settings-registry.ts, DeepCheck), done
 * right after the row's own check. `regex-lines` and `scope-rules` are left to the scope phase.
 */
function deepProblems(row: SettingRow, v: unknown, s: CrawlSettings, out: SettingProblem[]): void {
  const add = (key: string, message: string) => out.push({ key, message });
  switch (row.check) {
    case 'host-overrides':
      ((v as HostOverride[] | undefined) ?? []).forEach((o, i) => overrideProblems(row as StructuredRow, o, `${row.key}[${i}]`, out));
      return;
    case 'seed-urls':
      for (const seed of (v as string[] | undefined) ?? []) {
        try {
          normalizeUrl(seed);
        } catch (err) {
          add(row.key, `invalid seed ${shown(seed)}: ${(err as Error).message}`);
        }
      }
      return;
    case 'existing-paths':
      for (const p of (v as string[] | undefined) ?? []) if (!fs.existsSync(p)) add(row.key, `${p}: no such crawl directory or CDXJ file`);
      return;
    case 'cookies-file':
      if (typeof v === 'string') {
        try {
          parseCookiesTxt(fs.readFileSync(v, 'utf8'), v);
        } catch (e) {
          add(row.key, isTroveError(e) ? e.message : `${v}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
        }
      }
      return;
    case 'existing-file-if-enabled': {
      const group = valueAt(s, row.key.split('.')[0]!) as { enabled?: unknown } | undefined;
      if (typeof v === 'string' && v.trim() === '') add(row.key, 'must be the path of a file');
      else if (typeof v === 'string' && (group?.enabled === true || captureModeOf(s) !== 'http') && !fs.existsSync(v)) add(row.key, `${v}: no such file`);
      return;
    }
    default:
      return;
  }
}

/** Every problem with these settings, in the order of the registry's rows; empty when they can start a crawl. */
export function settingsProblems(s: CrawlSettings, opts: { requireSeeds: boolean }): SettingProblem[] {
  const out: SettingProblem[] = [];
  const add = (key: string, message: string) => out.push({ key, message });
  const values = s as unknown as Record<string, unknown>;
  let seedsOk = true;

  const seedsRow = ROWS.find((r) => r.check === 'seed-urls')!;
  if (opts.requireSeeds && s.seeds.length === 0) add(seedsRow.key, 'no seeds: give at least one seed URL');
  for (const row of ROWS) {
    const group = row.key.includes('.') ? values[row.key.split('.')[0]!] : undefined;
    // A group stored before it existed (settings of an older crawl) is absent: nothing to check.
    if (row.key.includes('.') && group === undefined) continue;
    if (row.key.includes('.') && (typeof group !== 'object' || group === null)) {
      if (!out.some((p) => p.key === row.key.split('.')[0])) add(row.key.split('.')[0]!, 'must be an object of its settings');
      continue;
    }
    const v = valueAt(s, row.key);
    if (v === undefined && row.optional) {
      if (row.type === 'string' && row.requiredWhen && values[row.requiredWhen.key] === row.requiredWhen.is) add(row.key, row.requiredWhen.message);
      continue;
    }
    // A list absent from settings stored before it existed is an empty one.
    if (v === undefined && (row.type === 'list' || row.type === 'structured')) continue;
    const before = out.length;
    // A row's own check, then an order rule it has with another (maximum delay ≥ minimum).
    const p = rowProblem(row, v) ?? orderProblem(row, values);
    if (p) add(row.key, p);
    else deepProblems(row, v, s, out);
    if (row.check === 'seed-urls' && out.length > before) seedsOk = false;
  }

  // The scope: every pattern compiled on its own so that all bad ones are reported, then the
  // whole scope built, once its seeds and numbers are fine.
  let scopeOk = seedsOk;
  for (const row of ROWS) {
    if (row.check === 'regex-lines') {
      ((values[row.key] as string[] | undefined) ?? []).forEach((pattern, i) => {
        try {
          compileRegex(pattern, row.key);
        } catch (err) {
          scopeOk = false;
          add(row.key, `line ${i + 1}: ${regexReason(pattern) ?? problemOf(err, row.key).message.replace(`${row.key}: `, '')}`);
        }
      });
    } else if (row.check === 'scope-rules') {
      ((values[row.key] as ScopeRuleConfig[] | undefined) ?? []).forEach((rule, i) => {
        try {
          if (isAfterFetchRule(rule)) compileAfterFetchRules([rule]);
          else buildExtraRule(rule);
        } catch (err) {
          scopeOk = false;
          out.push(problemOf(err, `${row.key}[${i}]`));
        }
      });
    }
  }
  const scopeNumbersOk = !out.some((p) => settingRow(p.key)?.section === 'Scope');
  if (scopeOk && scopeNumbersOk) {
    try {
      buildScope(scopeSettingsFrom(s), s.seeds);
    } catch (err) {
      const setting = isTroveError(err) && typeof err.details.setting === 'string' ? err.details.setting : ROWS.find((r) => r.section === 'Scope')!.key;
      out.push(problemOf(err, setting));
    }
  }
  return out;
}

/** Problems as lines, each led by the name `nameOf` gives its key (the CLI passes its flag names). */
export function formatProblems(problems: readonly SettingProblem[], nameOf: (key: string) => string = (k) => k): string {
  return problems.map((p) => `${nameOf(p.key)}: ${p.message}`).join('\n');
}

/** Throws SETTINGS_INVALID listing every problem (details.problems holds them tagged by key). */
export function validateSettings(s: CrawlSettings, opts: { requireSeeds: boolean }): void {
  const problems = settingsProblems(s, opts);
  if (problems.length === 0) return;
  const message = problems.length === 1 ? formatProblems(problems) : `${problems.length} settings problems:\n${formatProblems(problems)}`;
  throw new TroveError('SETTINGS_INVALID', message, { problems, setting: problems[0]!.key });
}
