/**
 * What the scope decided about a URL, and why: plain data the crawler logs, the app's scope
 * tester shows and crawl.json keeps. It lives in api (the layer below scope) so the renderer and
 * the app commands can name it without importing the scope rules.
 */

/** L link, E embed, R redirect, X speculative (found in script), P prerequisite, I inferred, M sitemap, S synthesized. */
export type HopType = 'L' | 'E' | 'R' | 'X' | 'P' | 'I' | 'M' | 'S';

export type RuleResult = 'ACCEPT' | 'REJECT' | 'PASS';
export type RuleDecision = 'ACCEPT' | 'REJECT';

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
