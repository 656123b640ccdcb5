/**
 * Settings checks before anything is written. `settingsProblems` lists *every* problem, each
 * tagged with the setting's key (`limitPages`, `overrides[0].host`, `include`) and told in plain
 * words, so the app can show each one next to its field and the CLI can name its own flag for
 * the key. Nothing is clamped or defaulted here: a value is accepted as it is or reported.
 * `validateSettings` is the throwing form (SETTINGS_INVALID, the CLI exits 2) used by a crawl
 * start, so a bad value never half-starts a crawl.
 */
import fs from 'node:fs';
import { isTroveError, TroveError } from '../errors.ts';
import { DEDUP_MODE_NAMES, isOneOf, POLITENESS_PRESET_NAMES, ROBOTS_POLICY_NAMES, SCOPE_PRESET_NAMES } from '../api/settings.ts';
import type { CrawlSettings, HostOverride } from '../api/settings.ts';
import { normalizeUrl } from '../scope/normalize-url.ts';
import { buildScope, scopeSettingsFrom } from '../scope/decide-rules.ts';
import { compileRegex } from '../scope/standard-rules.ts';
import { buildExtraRule, compileAfterFetchRules, isAfterFetchRule } from '../scope/extra-rules.ts';


/** One thing wrong with the settings: which setting, and what, in words without flag names. */
export interface SettingProblem {
  /** The CrawlSettings key, or a path into a list (`overrides[2].minDelayMs`, `scopeRules[0]`). */
  key: string;
  message: string;
}

/** How a number setting may be: bounds, whole or not, and what 0 means when it means something. */
interface NumberRule {
  min: number;
  max: number;
  whole: boolean;
  zero?: string;
}

const MAX_COUNT = Number.MAX_SAFE_INTEGER;
const WEEK_MS = 7 * 24 * 3600 * 1000;
const whole = (min: number, max: number, zero?: string): NumberRule => ({ min, max, whole: true, ...(zero ? { zero } : {}) });
/** Seconds may be fractions (a 0.3 s timeout): the crawl works in milliseconds. */
const seconds = (min: number, max: number): NumberRule => ({ min, max, whole: false });

/** Every number setting's rule: the one home of these bounds (the IPC gate only checks types). */
export const NUMBER_RULES: { readonly [K in keyof CrawlSettings]?: NumberRule } = {
  maxHops: whole(0, 1_000_000),
  transHops: whole(0, 100),
  maxPathRepeats: whole(0, 1_000_000),
  maxPathDepth: whole(0, 1_000_000),
  maxUrlLength: whole(0, 1_000_000),
  concurrency: whole(1, 512),
  perHost: whole(1, 64),
  delayFactor: { min: 0, max: 1000, whole: false },
  minDelayMs: whole(0, WEEK_MS),
  maxDelayMs: whole(0, WEEK_MS),
  crawlDelayCapS: whole(0, 7 * 24 * 3600),
  maxKbpsPerHost: { min: 0, max: MAX_COUNT, whole: false, zero: 'no cap' },
  robotsTtlS: whole(0, 365 * 24 * 3600),
  connectTimeoutS: seconds(0.1, 24 * 3600),
  headersTimeoutS: seconds(0.1, 24 * 3600),
  idleTimeoutS: seconds(0.1, 24 * 3600),
  fetchTimeoutS: seconds(0.1, 7 * 24 * 3600),
  maxBodyBytes: whole(0, MAX_COUNT),
  maxHeaderBytes: whole(1, 64 * 1024 * 1024),
  maxExtractBytes: whole(0, MAX_COUNT),
  maxLinksPerDocument: whole(0, MAX_COUNT),
  maxRetries: whole(0, 1000),
  retryDelayS: seconds(0, 30 * 24 * 3600),
  warcMaxBytes: whole(1024, MAX_COUNT),
  limitPages: whole(0, MAX_COUNT, 'no limit'),
  limitUris: whole(0, MAX_COUNT, 'no limit'),
  limitBytes: whole(0, MAX_COUNT, 'no limit'),
  limitTimeS: whole(0, MAX_COUNT, 'no limit'),
  maxTotalWarcBytes: whole(0, MAX_COUNT, 'no limit'),
  minFreeDiskBytes: whole(0, MAX_COUNT, 'no check'),
};

const OVERRIDE_NUMBERS = ['minDelayMs', 'maxDelayMs', 'delayFactor', 'perHost', 'maxKbpsPerHost'] as const;

function shown(v: unknown): string {
  if (typeof v === 'string') return v.trim() === '' ? 'empty' : JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return String(v);
}

/** The problem with one number, or null when it is accepted as it is. */
export function numberProblem(rule: NumberRule, v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return `must be a number, not ${shown(v)}`;
  if (rule.whole && !Number.isInteger(v)) return `must be a whole number, not ${v}`;
  const zero = rule.zero && rule.min === 0 ? ` (0 means ${rule.zero})` : '';
  if (v < rule.min) return `must be ${rule.min} or more${zero}, not ${v}`;
  if (v > rule.max) return `must be at most ${rule.max.toLocaleString('en-US')}, not ${v.toLocaleString('en-US')}`;
  return null;
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

function overrideProblems(o: HostOverride, at: string, out: SettingProblem[]): void {
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
  for (const k of OVERRIDE_NUMBERS) {
    if (o[k] === undefined) continue;
    const p = numberProblem(NUMBER_RULES[k]!, o[k]);
    if (p) out.push({ key: `${at}.${k}`, message: p });
  }
  if (typeof o.minDelayMs === 'number' && typeof o.maxDelayMs === 'number' && o.minDelayMs > o.maxDelayMs) {
    out.push({ key: `${at}.maxDelayMs`, message: `the maximum delay (${o.maxDelayMs} ms) is below the minimum (${o.minDelayMs} ms)` });
  }
  if (o.robots !== undefined && !isOneOf(ROBOTS_POLICY_NAMES, o.robots)) out.push({ key: `${at}.robots`, message: `must be one of ${ROBOTS_POLICY_NAMES.join(', ')}` });
  if (o.userAgent !== undefined && (o.userAgent.trim() === '' || /[\r\n]/.test(o.userAgent))) out.push({ key: `${at}.userAgent`, message: 'must be one non-empty line' });
}

/** Browser capture: on or off, an executable if one is named, 1 to 16 tabs. */
function browserProblems(b: CrawlSettings['browser'] | undefined, out: SettingProblem[]): void {
  if (b === undefined) return; // settings stored before browser capture existed
  if (typeof b !== 'object' || b === null) return void out.push({ key: 'browser', message: 'must be { enabled, path?, tabs }' });
  if (typeof b.enabled !== 'boolean') out.push({ key: 'browser.enabled', message: 'must be true or false' });
  const tabs = numberProblem(whole(1, 16), b.tabs);
  if (tabs) out.push({ key: 'browser.tabs', message: tabs });
  if (b.path !== undefined && (typeof b.path !== 'string' || b.path.trim() === '')) out.push({ key: 'browser.path', message: 'must be the path of a Chromium or Chrome executable' });
  else if (b.enabled && b.path !== undefined && !fs.existsSync(b.path)) out.push({ key: 'browser.path', message: `${b.path}: no such file` });
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

/** Every problem with these settings, in the order of the form; empty when they can start a crawl. */
export function settingsProblems(s: CrawlSettings, opts: { requireSeeds: boolean }): SettingProblem[] {
  const out: SettingProblem[] = [];
  const add = (key: string, message: string) => out.push({ key, message });

  if (opts.requireSeeds && s.seeds.length === 0) add('seeds', 'no seeds: give at least one seed URL');
  let seedsOk = true;
  for (const seed of s.seeds) {
    try {
      normalizeUrl(seed);
    } catch (err) {
      seedsOk = false;
      add('seeds', `invalid seed ${shown(seed)}: ${(err as Error).message}`);
    }
  }
  if (!isOneOf(SCOPE_PRESET_NAMES, s.scope)) add('scope', `must be one of ${SCOPE_PRESET_NAMES.join(', ')}, not ${shown(s.scope)}`);
  if (s.politeness !== undefined && !isOneOf(POLITENESS_PRESET_NAMES, s.politeness)) add('politeness', `must be one of ${POLITENESS_PRESET_NAMES.join(', ')}`);
  if (!isOneOf(ROBOTS_POLICY_NAMES, s.robots)) add('robots', `must be one of ${ROBOTS_POLICY_NAMES.join(', ')}, not ${shown(s.robots)}`);
  if (s.robots === 'custom' && !s.robotsFile) add('robotsFile', 'the custom robots policy needs a robots.txt file');
  if (!isOneOf(DEDUP_MODE_NAMES, s.dedup)) add('dedup', `must be one of ${DEDUP_MODE_NAMES.join(', ')}, not ${shown(s.dedup)}`);
  if (s.retryBackoff !== 'exponential' && s.retryBackoff !== 'fixed') add('retryBackoff', 'must be exponential or fixed');
  if (!/^(host|elfhash:[1-9]\d{0,4})$/.test(String(s.queuePolicy))) add('queuePolicy', `must be "host" or "elfhash:" and a number of queues, not ${shown(s.queuePolicy)}`);

  for (const [k, rule] of Object.entries(NUMBER_RULES) as [keyof CrawlSettings, NumberRule][]) {
    const p = numberProblem(rule, s[k]);
    if (p) add(k, p);
  }
  if (typeof s.minDelayMs === 'number' && typeof s.maxDelayMs === 'number' && s.minDelayMs > s.maxDelayMs && !out.some((p) => p.key === 'maxDelayMs')) {
    add('maxDelayMs', `the maximum delay (${s.maxDelayMs} ms) is below the minimum (${s.minDelayMs} ms)`);
  }
  (s.overrides ?? []).forEach((o, i) => overrideProblems(o, `overrides[${i}]`, out));

  if (typeof s.userAgent !== 'string' || s.userAgent.trim() === '' || /[\r\n]/.test(s.userAgent)) add('userAgent', 'must be one non-empty line');
  if (typeof s.warcPrefix !== 'string' || !/^[A-Za-z0-9._-]+$/.test(s.warcPrefix)) add('warcPrefix', 'may hold only letters, digits, ".", "_" and "-"');
  browserProblems(s.browser, out);
  for (const src of s.dedupFrom ?? []) {
    if (!fs.existsSync(src)) add('dedupFrom', `${src}: no such crawl directory or CDXJ file`);
  }

  // Every pattern is compiled on its own so that all bad ones are reported, not just the first.
  let scopeOk = true;
  for (const key of ['include', 'exclude'] as const) {
    (s[key] ?? []).forEach((pattern, i) => {
      try {
        compileRegex(pattern, key);
      } catch (err) {
        scopeOk = false;
        out.push({ key, message: `line ${i + 1}: ${regexReason(pattern) ?? problemOf(err, key).message.replace(`${key}: `, '')}` });
      }
    });
  }
  (s.scopeRules ?? []).forEach((rule, i) => {
    try {
      if (isAfterFetchRule(rule)) compileAfterFetchRules([rule]);
      else buildExtraRule(rule);
    } catch (err) {
      scopeOk = false;
      out.push(problemOf(err, `scopeRules[${i}]`));
    }
  });
  const scopeNumbersOk = !out.some((p) => ['scope', 'maxHops', 'transHops', 'maxPathRepeats', 'maxPathDepth', 'maxUrlLength'].includes(p.key));
  if (scopeOk && seedsOk && scopeNumbersOk) {
    try {
      buildScope(scopeSettingsFrom(s), s.seeds);
    } catch (err) {
      const setting = isTroveError(err) && typeof err.details.setting === 'string' ? err.details.setting : 'scope';
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
