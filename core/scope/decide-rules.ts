/**
 * Heritrix decide rules: a sequence in which every rule answers ACCEPT, REJECT or PASS, the last
 * non-PASS answer wins, and nothing → REJECT. The default sequence (numbers as in `describe()`):
 *
 *   1  reject-all
 *   2  scope-<preset>      seed-implied scope (page / prefix / host / domain / any)
 *   3  include-regex       Browsertrix include patterns
 *      (extra rules that ACCEPT)
 *   .  max-hops            REJECT beyond maxHops hops
 *   .  transclusion        ACCEPT embeds/redirects (up to transHops, ≤ 1 speculative) off an in-scope page
 *   .  exclude-regex       REJECT exclude patterns: after every accept, so exclusions always win
 *      (extra rules that REJECT)
 *   .  path-repeats        REJECT /a/a/a/ traps
 *   .  path-depth          REJECT more than maxPathDepth segments
 *   .  url-length          REJECT URLs over maxUrlLength
 *   .  prerequisite        ACCEPT robots.txt & co. whatever came before
 *   .  scheme              REJECT anything that is not http/https
 *   .  logout-guard        REJECT log-out URLs (unless fetchLogoutUrls): a login must survive the crawl
 *
 * As in Heritrix, transclusion comes after the hop limit, so the embeds of a page at the limit
 * are still captured.
 */
import { TroveError } from '../errors.ts';
import { isOneOf, SCOPE_PRESET_NAMES } from '../api/settings.ts';
import type { CrawlSettings } from '../api/settings.ts';
import { parseUrl } from './normalize-url.ts';
import { buildExtraRule, compileAfterFetchRules, describeAfterFetchRules, isAfterFetchRule } from './extra-rules.ts';
import { logoutRule } from './logout-rule.ts';
import { seedScopeRule } from './scope-presets.ts';
import type { SeedScopeRule } from './scope-presets.ts';
import {
  excludeRegexRule,
  includeRegexRule,
  maxHopsRule,
  pathDepthRule,
  pathRepeatsRule,
  prerequisiteRule,
  REJECT_ALL,
  rejectAllRule,
  schemeRule,
  transclusionRule,
  urlLengthRule,
} from './standard-rules.ts';
import type { Decision, DecideRule, NotAccepted, RuleInput, ScopeCandidate, ScopeSettings, TraceEntry } from './scope-types.ts';

export type {
  Decision,
  DecideRule,
  ExtraRuleConfig,
  FileTypePreset,
  HopType,
  NotAccepted,
  RuleDecision,
  RuleResult,
  ScopeCandidate,
  ScopeSettings,
  TraceEntry,
} from './scope-types.ts';
export { decideAfterFetch, FILE_TYPE_PRESETS } from './extra-rules.ts';
export type { FetchedInfo } from './extra-rules.ts';
export { seedSurtPrefix } from './scope-presets.ts';

const HOPS_PATH = /^[LERXPIMS]*$/;

export interface Scope {
  decide(candidate: ScopeCandidate): Decision;
  /** A new seed, or a seed's redirect target (which becomes a seed). */
  addSeed(url: string): void;
  /**
   * A live exclusion (a regex added to the running crawl, core/crawl/live-exclude.ts): from now
   * on URLs matching it are rejected by the exclude-regex rule. Throws SCOPE_BAD_REGEX.
   */
  addExclude(pattern: string): void;
  /** How many seeds and excludes were added since it was built: the only things that change a decision. */
  changes(): number;
  /** The rules in order, one line each (`1. reject-all: …`), for warcinfo and the UI. */
  describe(): string[];
}

/**
 * Build the crawl's scope. Throws TroveError: SCOPE_BAD_SETTING (bad preset or number),
 * SCOPE_BAD_REGEX (an include/exclude/rule pattern does not compile), SCOPE_BAD_RULE (bad extra
 * rule), URL_INVALID / URL_UNSUPPORTED_SCHEME (a bad seed).
 */
export function buildScope(settings: ScopeSettings, seeds: string[]): Scope {
  checkSettings(settings);
  const extras = (settings.rules ?? []).filter((r) => !isAfterFetchRule(r)).map((config) => ({ config, rule: buildExtraRule(config) }));
  const acceptExtras = extras.filter((e) => e.config.decision === 'ACCEPT').map((e) => e.rule);
  const rejectExtras = extras.filter((e) => e.config.decision === 'REJECT').map((e) => e.rule);
  compileAfterFetchRules(settings.rules ?? []); // fail now on a bad mime/content-length rule, not mid-crawl
  const seedRule: SeedScopeRule = seedScopeRule(settings.scope, seeds);

  const excludeRule = excludeRegexRule(settings.exclude);
  const rules: DecideRule[] = [
    rejectAllRule(),
    seedRule,
    includeRegexRule(settings.include),
    ...acceptExtras,
    maxHopsRule(settings.maxHops),
    transclusionRule(settings.transHops),
    excludeRule,
    ...rejectExtras,
    pathRepeatsRule(settings.maxPathRepeats),
    pathDepthRule(settings.maxPathDepth),
    urlLengthRule(settings.maxUrlLength),
    prerequisiteRule(),
    schemeRule(),
    // Last, so it has the final word (a log-out URL is refused even as a prerequisite or a seed);
    // after the fixed rules so their numbers stay as Heritrix users know them.
    ...(settings.fetchLogoutUrls ? [] : [logoutRule()]),
  ];
  const afterFetch = describeAfterFetchRules(settings.rules ?? []);

  let changes = 0;
  return {
    decide: (candidate) => runRules(rules, candidate),
    addSeed: (url) => {
      seedRule.addSeed(url);
      changes++;
    },
    addExclude: (pattern) => {
      excludeRule.add(pattern);
      changes++;
    },
    changes: () => changes,
    describe: () => [...rules.map((r, i) => `${i + 1}. ${r.describe()}`), ...afterFetch.map((d, i) => `${rules.length + i + 1}. ${d}`)],
  };
}

/** The scope part of a crawl's settings. */
export function scopeSettingsFrom(settings: CrawlSettings): ScopeSettings {
  const { scope, include, exclude, maxHops, transHops, maxPathRepeats, maxPathDepth, maxUrlLength, fetchLogoutUrls } = settings;
  return { scope, include, exclude, maxHops, transHops, maxPathRepeats, maxPathDepth, maxUrlLength, fetchLogoutUrls, rules: settings.scopeRules ?? [] };
}

function runRules(rules: readonly DecideRule[], candidate: ScopeCandidate): Decision {
  if (!candidate || typeof candidate.url !== 'string') {
    throw new TroveError('SCOPE_BAD_CANDIDATE', 'A scope candidate needs a url string', { candidate });
  }
  const hopsPath = candidate.hopsPath ?? '';
  if (typeof hopsPath !== 'string' || !HOPS_PATH.test(hopsPath)) {
    throw new TroveError('SCOPE_BAD_HOPS_PATH', `Hops path must use only the letters L E R X P I M S, got "${String(hopsPath)}"`, {
      hopsPath,
    });
  }
  const input = toInput({ ...candidate, hopsPath });
  const trace: TraceEntry[] = [];
  let deciding = -1;
  for (let i = 0; i < rules.length; i++) {
    const answer = rules[i]!.decide(input);
    trace.push({ rule: rules[i]!.name, result: answer.result, reason: answer.reason });
    if (answer.result !== 'PASS') deciding = i;
  }
  const entry = deciding < 0 ? null : trace[deciding]!;
  if (!entry || entry.rule === REJECT_ALL) {
    const why = notAccepted(rules, input);
    return { decision: 'REJECT', rule: why.key, reason: `REJECT: ${why.reason}`, trace };
  }
  const decision = entry.result === 'ACCEPT' ? 'ACCEPT' : 'REJECT';
  return { decision, rule: entry.rule, reason: `${decision} by ${entry.rule}: ${entry.reason} (rule ${deciding + 1})`, trace };
}

/**
 * Nothing accepted the URL (Heritrix's reject-all stood): true to the rule sequence, useless to
 * a person. Name instead the rules that could have accepted it and why they did not — the seed
 * scope ("other host", "not under …"), and transclusion when the URL was an embed too many hops
 * from its page (then its name is counted: raising --trans-hops is what would take it).
 */
function notAccepted(rules: readonly DecideRule[], input: RuleInput): NotAccepted {
  const whys = rules.map((r) => r.whyNotAccepted?.(input) ?? null).filter((w): w is NotAccepted => w !== null);
  if (whys.length === 0) return { key: 'not-accepted', reason: 'no rule accepted this URL' };
  const trans = whys.find((w) => w.key === 'trans-hops');
  const scope = whys.find((w) => w.key !== 'trans-hops');
  if (trans && scope) return { key: trans.key, reason: `${trans.reason}, and ${scope.reason}` };
  return whys[0]!;
}

/** Parse once for all rules. A URL WHATWG rejects still gets a (rejecting) decision, never a throw. */
function toInput(candidate: ScopeCandidate): RuleInput {
  if (candidate.parsed) return { candidate, url: candidate.parsed, href: candidate.parsed.href };
  let url: URL | null = null;
  try {
    url = parseUrl(candidate.url);
    url.hash = '';
  } catch {
    url = null;
  }
  return { candidate, url, href: url ? url.href : candidate.url };
}

function checkSettings(s: ScopeSettings): void {
  if (!s || typeof s !== 'object') throw new TroveError('SCOPE_BAD_SETTING', 'Scope settings must be an object');
  if (!isOneOf(SCOPE_PRESET_NAMES, s.scope)) {
    throw new TroveError('SCOPE_BAD_SETTING', `scope must be one of ${SCOPE_PRESET_NAMES.join(', ')}, got ${String(s.scope)}`, { scope: s.scope });
  }
  for (const key of ['maxHops', 'transHops', 'maxPathRepeats', 'maxPathDepth', 'maxUrlLength'] as const) {
    const v = s[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      throw new TroveError('SCOPE_BAD_SETTING', `${key} must be a whole number ≥ 0, got ${String(v)}`, { [key]: v });
    }
  }
  for (const key of ['include', 'exclude'] as const) {
    if (!Array.isArray(s[key])) throw new TroveError('SCOPE_BAD_SETTING', `${key} must be a list of regular expressions`, { [key]: s[key] });
  }
  if (s.rules !== undefined && !Array.isArray(s.rules)) {
    throw new TroveError('SCOPE_BAD_SETTING', 'rules must be a list', { rules: s.rules });
  }
}
