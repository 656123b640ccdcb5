/**
 * The candidate chain: a discovered link becomes a frontier candidate, or a counted scope
 * rejection. normalize → scope decide (explainable) → canonicalize → fingerprint → queue key.
 * Nothing here touches the network or the database; the caller schedules what comes out.
 *
 * Each outlink is parsed once (WHATWG `URL`), and the scope rules and the queue key read that
 * parse: on a page of links this chain runs for every link, and it used to parse each URL four
 * times (normalize, canonicalize, the rules' input, the queue's host).
 */
import type { Candidate } from '../frontier/frontier.ts';
import { queueAssigner } from '../frontier/queue-assignment.ts';
import { canonicalize, canonicalizeNormalized } from '../scope/canonicalize.ts';
import { fingerprint } from '../scope/fingerprint.ts';
import { normalizeUrl, parseFetchableUrl } from '../scope/normalize-url.ts';
import type { Decision } from '../scope/scope-types.ts';
import type { Outlink } from '../extract/outlink.ts';

/** What the chain needs from a scope (see core/scope/decide-rules.ts). */
export interface ScopeDecider {
  decide(c: { url: string; hopsPath: string; via?: string; seed?: boolean; parsed?: URL }): Decision;
}

export interface Rejection {
  url: string;
  hopsPath: string;
  via: string | null;
  rule: string;
  reason: string;
}

/** Directive values: higher goes first inside a queue (Heritrix scheduling directives). */
export const DIRECTIVE_NORMAL = 0;
export const DIRECTIVE_REDIRECT = 1;
export const DIRECTIVE_PREREQUISITE = 2;

export class CandidateChain {
  private scope: ScopeDecider;
  private queueKey: (url: string, parsed?: URL) => string;
  private onAccept: (c: Candidate) => void;
  private onReject: (r: Rejection) => void;

  constructor(scope: ScopeDecider, queuePolicy: string, onAccept: (c: Candidate) => void, onReject: (r: Rejection) => void) {
    this.scope = scope;
    this.queueKey = queueAssigner(queuePolicy);
    this.onAccept = onAccept;
    this.onReject = onReject;
  }

  /** A seed: normalized, always in scope by definition of the seed rule; hops path ''. */
  seed(raw: string): Candidate {
    const url = normalizeUrl(raw);
    return this.candidate(url, '', null, undefined, DIRECTIVE_NORMAL, true);
  }

  /** Outlinks of one fetched URI → in-scope candidates. Rejections go to `onReject`. */
  fromOutlinks(parent: { url: string; hopsPath: string; seed: boolean }, outlinks: Outlink[], seedRedirect: boolean): Candidate[] {
    const out: Candidate[] = [];
    for (const link of outlinks) {
      let parsed: URL;
      try {
        parsed = parseFetchableUrl(link.url);
      } catch {
        continue; // extraction already filtered schemes; an unparsable URL is not a candidate
      }
      const url = parsed.href;
      const hopsPath = parent.hopsPath + link.hop;
      // Heritrix seedsRedirectNewSeeds: a seed's redirect target is treated as a seed.
      const asSeed = seedRedirect && link.hop === 'R';
      const decision = this.scope.decide({ url, hopsPath, via: parent.url, seed: asSeed, parsed });
      if (decision.decision === 'REJECT') {
        this.onReject({ url, hopsPath, via: parent.url, rule: decision.rule, reason: decision.reason });
        continue;
      }
      const directive = link.hop === 'R' ? DIRECTIVE_REDIRECT : link.hop === 'P' ? DIRECTIVE_PREREQUISITE : DIRECTIVE_NORMAL;
      const c = this.candidate(url, hopsPath, parent.url, link.context, directive, asSeed, parsed);
      this.onAccept(c);
      out.push(c);
    }
    return out;
  }

  /** A rejection decided elsewhere (after fetch), logged and counted like the others. */
  reportRejection(r: Rejection): void {
    this.onReject(r);
  }

  /** A prerequisite (robots.txt) for `forUrl`: same queue policy, hop P, goes first. */
  prerequisite(robotsUrl: string, parent: { url: string; hopsPath: string }, notBefore?: number): Candidate {
    const c = this.candidate(robotsUrl, parent.hopsPath + 'P', parent.url, 'robots', DIRECTIVE_PREREQUISITE, false);
    // A prerequisite shares the queue of the URI waiting on it, so politeness covers both.
    c.queueKey = this.queueKey(parent.url);
    if (notBefore !== undefined) c.notBefore = notBefore;
    return c;
  }

  /** `parsed`, when given, is `url` parsed by parseFetchableUrl (so `url` is normalized already). */
  private candidate(url: string, hopsPath: string, via: string | null, context: string | undefined, directive: number, seed: boolean, parsed?: URL): Candidate {
    const canonical = parsed ? canonicalizeNormalized(url) : canonicalize(url);
    const c: Candidate = {
      url,
      canonical,
      fingerprint: fingerprint(canonical),
      queueKey: this.queueKey(url, parsed),
      hopsPath,
      via,
      directive,
      seed,
    };
    if (context !== undefined) c.viaContext = context;
    return c;
  }
}
