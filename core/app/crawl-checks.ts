/**
 * The "as you type" side of the New crawl screen: seed lists, settings, scope and robots tests.
 * All of it is the core's own logic (normalizeUrl, settingsProblems, buildScope, parseRobots,
 * evaluateRobots) run on what is typed; nothing here decides anything itself.
 */
import { defaultSettings, type CrawlSettings } from '../api/settings.ts';
import type {
  CrawlCheck,
  CrawlCheckRequest,
  RobotsTestRequest,
  RobotsTestResult,
  ScopeTestRequest,
  ScopeTestResult,
  SeedCheck,
  SettingsCheckPatch,
  SettingsIssue,
} from '../api/app-types.ts';
import { isTroveError, TroveError } from '../errors.ts';
import { normalizeUrl } from '../scope/normalize-url.ts';
import { buildScope, scopeSettingsFrom, type Scope } from '../scope/decide-rules.ts';
import { settingsProblems } from '../crawl/validate-settings.ts';
import { noUsableLine, parseRobots } from '../robots/parse-robots.ts';
import { agentToken, evaluateRobots } from '../robots/robots-policy.ts';

/** One URL a line; blank lines and `#` comments are skipped. Line numbers are 1-based. */
export function checkSeeds(text: string): SeedCheck[] {
  const out: SeedCheck[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const input = raw.trim();
    if (input === '' || input.startsWith('#')) return;
    try {
      const url = normalizeUrl(input);
      out.push({ line: i + 1, input, url, error: null, duplicate: seen.has(url) });
      seen.add(url);
    } catch (err) {
      out.push({ line: i + 1, input, url: null, error: (err as Error).message, duplicate: false });
    }
  });
  return out;
}

export function seedUrls(seeds: SeedCheck[]): string[] {
  return seeds.filter((s) => s.url !== null && !s.duplicate).map((s) => s.url!);
}

/** The settings a crawl would start with (defaults, then the patch, then these seeds). */
export function effectiveSettings(patch: SettingsCheckPatch, seeds: string[]): CrawlSettings {
  return { ...defaultSettings(), ...patch, seeds };
}

/** The checks a crawl start runs, every problem tagged with its setting (the core's settingsProblems). */
export function checkCrawl(req: CrawlCheckRequest): CrawlCheck & { settings: CrawlSettings; scope: Scope | null } {
  const seeds = checkSeeds(req.seedsText);
  const urls = seedUrls(seeds);
  const settings = effectiveSettings(req.settings, urls);
  const issues: SettingsIssue[] = [];
  for (const s of seeds) if (s.error) issues.push({ field: 'seeds', code: 'SEED_INVALID', message: `line ${s.line}: ${s.error}` });
  if (urls.length === 0 && seeds.every((s) => !s.error)) issues.push({ field: 'seeds', code: 'SETTINGS_INVALID', message: 'add at least one seed URL' });
  if (settings.robots === 'custom' && !(req.customRobots ?? '').trim()) {
    issues.push({ field: 'customRobots', code: 'SETTINGS_INVALID', message: 'the custom policy needs robots.txt rules: write them in the editor' });
  } else if (settings.robots === 'custom') {
    const unusable = noUsableLine(parseRobots(req.customRobots!));
    if (unusable) issues.push({ field: 'customRobots', code: 'SETTINGS_INVALID', message: unusable });
  }
  // The app sends the custom robots.txt as text, so the file the core asks for is the app's to write.
  const problems = settingsProblems({ ...settings, robotsFile: settings.robots === 'custom' ? 'custom-robots.txt' : undefined }, { requireSeeds: false });
  for (const p of problems) issues.push({ field: p.key, code: 'SETTINGS_INVALID', message: p.message });
  const agents: [string, unknown][] = [['userAgent', settings.userAgent], ...(Array.isArray(settings.candidateAgents) ? settings.candidateAgents : []).map((a): [string, unknown] => ['candidateAgents', a])];
  for (const [field, ua] of agents) {
    if (typeof ua !== 'string' || issues.some((i) => i.field === field)) continue;
    try {
      agentToken(ua);
    } catch (err) {
      if (!isTroveError(err)) throw err;
      issues.push({ field, code: err.code, message: err.message });
    }
  }
  let scope: Scope | null = null;
  let scopeRules: string[] = [];
  if (!problems.length) {
    try {
      scope = buildScope(scopeSettingsFrom(settings), urls);
      scopeRules = scope.describe();
    } catch (err) {
      if (!isTroveError(err)) throw err;
      issues.push({ field: 'scope', code: err.code, message: err.message });
    }
  }
  return { valid: issues.length === 0, seeds, urls, issues, scopeRules, settings, scope };
}

/** What the scope would decide for one URL, with every rule's answer. */
export function scopeTest(req: ScopeTestRequest): ScopeTestResult {
  const seeds = seedUrls(checkSeeds(req.seedsText));
  const settings = effectiveSettings(req.settings, seeds);
  const scope = buildScope(scopeSettingsFrom(settings), seeds);
  let url = req.url.trim();
  if (url === '') throw new TroveError('URL_INVALID', 'type a URL to test');
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) url = `http://${url}`;
  const isSeed = seeds.includes(safeNormalize(url) ?? url);
  const hopsPath = req.hopsPath ?? (isSeed ? '' : 'L');
  const decision = scope.decide({ url, hopsPath, via: req.via, seed: isSeed });
  // The rule the verdict names, so the list never highlights another one: when nothing accepted
  // the URL the verdict names why (`outside-prefix`…), not the reject-all that stood, and no
  // rule of the list is marked.
  let deciding = -1;
  decision.trace.forEach((t, i) => {
    if (t.result !== 'PASS' && t.rule === decision.rule) deciding = i;
  });
  return { decision, rules: scope.describe(), deciding };
}

function safeNormalize(url: string): string | null {
  try {
    return normalizeUrl(url);
  } catch {
    return null;
  }
}

/** What a robots.txt says for one URL under one of the five policies. */
export function robotsTest(req: RobotsTestRequest): RobotsTestResult {
  const robots = parseRobots(req.robotsText);
  let url = req.url.trim();
  if (url.startsWith('/')) url = `http://example.com${url}`;
  else if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) url = `http://${url}`;
  const verdict = evaluateRobots(req.policy, {
    state: { kind: 'rules', robots, expiresAt: Number.MAX_SAFE_INTEGER },
    custom: robots,
    url,
    userAgent: req.userAgent,
    candidateAgents: req.candidateAgents ?? [],
    masquerade: req.masquerade ?? false,
  });
  return {
    allowed: verdict.allowed,
    policy: verdict.policy,
    agent: verdict.agent,
    group: verdict.group,
    rule: verdict.rule,
    reason: verdict.reason,
    sendUserAgent: verdict.sendUserAgent ?? null,
    crawlDelay: robots.crawlDelay(verdict.agent),
    sitemaps: [...robots.sitemaps],
    ignored: robots.ignored.map((l) => ({ line: l.line, reason: l.reason })),
    groups: robots.groups.map((g) => ({ agents: [...g.agents], line: g.line, rules: g.rules.length })),
  };
}
