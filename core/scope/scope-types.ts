import type { CrawlSettings, ScopeRuleConfig } from '../api/settings.ts';
import type { RuleResult } from '../api/scope-decision.ts';

/**
 * Shapes shared by the scope rules, the crawler and the UI. Plain data only, so crawl.json and
 * the renderer can use them.
 */

// The decision's own shapes are api's (scope-decision.ts); the rules name them from here too.
export type { Decision, HopType, RuleDecision, RuleResult, TraceEntry } from '../api/scope-decision.ts';

export interface ScopeCandidate {
  url: string;
  /** Hops from the seed, e.g. `LLE`; `''` for a seed. */
  hopsPath: string;
  /** The URL this one was found on. */
  via?: string;
  seed?: boolean;
  /**
   * `url` parsed already (normalize-url.ts's parseFetchableUrl, so its href is `url`): the rules
   * read it instead of parsing `url` again. Not changed by the rules.
   */
  parsed?: URL;
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
> & { rules?: ExtraRuleConfig[]; /** Absent or false: the log-out guard rejects log-out URLs. */ fetchLogoutUrls?: boolean };

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
