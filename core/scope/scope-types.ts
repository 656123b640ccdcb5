import type { CrawlSettings, ScopeRuleConfig } from '../api/settings.ts';

/**
 * Shapes shared by the scope rules, the crawler and the UI. Plain data only, so crawl.json and
 * the renderer can use them.
 */

/** L link, E embed, R redirect, X speculative (found in script), P prerequisite, I inferred, M sitemap, S synthesized. */
export type HopType = 'L' | 'E' | 'R' | 'X' | 'P' | 'I' | 'M' | 'S';

export type RuleResult = 'ACCEPT' | 'REJECT' | 'PASS';
export type RuleDecision = 'ACCEPT' | 'REJECT';

export interface ScopeCandidate {
  url: string;
  /** Hops from the seed, e.g. `LLE`; `''` for a seed. */
  hopsPath: string;
  /** The URL this one was found on. */
  via?: string;
  seed?: boolean;
}

export interface TraceEntry {
  rule: string;
  result: RuleResult;
  reason?: string;
}

export interface Decision {
  decision: RuleDecision;
  /**
   * Name of the rule whose answer stood (the last non-PASS) — except when that is `reject-all`
   * (no rule accepted the URL): then the reason the scope did not take it, named by the rule that
   * would have (see NotAccepted): `other-host`, `outside-prefix`, `other-domain`,
   * `not-a-seed-page`, `trans-hops`. Crawl counts, scope.log and reports use this name;
   * `reject-all` is never one. The trace still shows reject-all deciding.
   */
  rule: string;
  /**
   * One sentence for people, e.g. `REJECT by exclude-regex: matched /calendar/ (rule 6)`, or
   * `REJECT: other host localhost:8080 (host scope of seed http://127.0.0.1:8080/)`.
   */
  reason: string;
  /** Every rule in order with what it answered. */
  trace: TraceEntry[];
}

export type FileTypePreset = 'images' | 'audio' | 'video' | 'documents';

/**
 * Rules a crawl config can add. Every rule says what it answers when it matches; otherwise it
 * answers PASS. Rules answering ACCEPT run with the scope rules (hop limit, excludes and trap
 * rules still apply after them); rules answering REJECT run after the excludes (only
 * prerequisites can override them). `mime` and `content-length` need the response: they are used
 * by `decideAfterFetch`, never by `decide`.
 */
export type ExtraRuleConfig = ScopeRuleConfig;

/** The crawl settings scope reads (core/api/settings.ts owns their meaning), and its extra rules. */
export type ScopeSettings = Pick<
  CrawlSettings,
  'scope' | 'include' | 'exclude' | 'maxHops' | 'transHops' | 'maxPathRepeats' | 'maxPathDepth' | 'maxUrlLength'
> & { rules?: ExtraRuleConfig[] };

/** What a rule sees: the candidate plus the parsed URL (null when WHATWG cannot parse it). */
export interface RuleInput {
  candidate: ScopeCandidate;
  url: URL | null;
  /** The URL as it will be fetched (WHATWG href without fragment), or the raw string if unparsable. */
  href: string;
}

export interface RuleAnswer {
  result: RuleResult;
  reason: string;
}

/** Why a rule that could have accepted a URL did not: a short name to count, and a sentence. */
export interface NotAccepted {
  key: string;
  reason: string;
}

/** One rule of the sequence. */
export interface DecideRule {
  readonly name: string;
  /** One line for warcinfo and the UI. */
  describe(): string;
  decide(input: RuleInput): RuleAnswer;
  /**
   * Rules that accept (seed scope, transclusion) say why they did not, for a URL nothing
   * accepted; null when they have nothing a person needs to hear.
   */
  whyNotAccepted?(input: RuleInput): NotAccepted | null;
}
