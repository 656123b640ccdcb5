/**
 * The candidate chain: a discovered link becomes a frontier candidate, or a counted scope
 * rejection. normalize → scope decide (explainable) → canonicalize → fingerprint → queue key.
 * Nothing here touches the network or the database; the caller schedules what comes out.
 *
 * Each outlink is parsed once (WHATWG `URL`), and the scope rules and the queue key read that
 * parse: on a page of links this chain runs for every link, and it used to parse each URL four
 * times (normalize, canonicalize, the rules' input, the queue's host). And what a link came to is
 * remembered by (URL, hops path, seed flag), the whole input of the decide rules: most links on a
 * site's pages are its navigation, found again on every page at the same depth, and each repeat
 * is then a map lookup instead of a parse, 13 rules and a hash. Every repeat is still reported
 * (a rejection logged and counted, an acceptance scheduled) exactly as the first.
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
  /**
   * Changes whenever a decision could change (a seed or a live exclude added): decisions are
   * remembered while it stays the same. A scope without it is asked every time.
   */
  changes?(): number;
}

/** What one (link, hops path, seed flag) came to: the same every time while the seeds stay. */
type Remembered =
  | { kind: 'skip' }
  | { kind: 'reject'; url: string; rule: string; reason: string }
  | { kind: 'accept'; url: string; canonical: string; fingerprint: bigint; queueKey: string; directive: number };

/**
 * Decisions remembered at most; then forgotten all at once (a site's shared links come back
 * first). Small on purpose: on a site whose links are all new (the synthetic crawl) every entry
 * is kept for nothing, and 8,192 kept cost more in garbage collection than they saved
 * (bench/candidate-chain-bench.ts: 1.46× the chain's CPU without memory, against ~1.0× at 2,048).
 */
const REMEMBER_MAX = 2048;

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
  private remembered = new Map<string, Remembered>();
  private rememberedFor = -1;

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
    const generation = this.scope.changes?.();
    if (generation !== this.rememberedFor || this.remembered.size >= REMEMBER_MAX) {
      this.remembered.clear();
      this.rememberedFor = generation ?? -1;
    }
    for (const link of outlinks) {
      const hopsPath = parent.hopsPath + link.hop;
      // Heritrix seedsRedirectNewSeeds: a seed's redirect target is treated as a seed.
      const asSeed = seedRedirect && link.hop === 'R';
      const key = `${asSeed ? 'S' : '-'}${hopsPath} ${link.url}`;
      let r = generation === undefined ? undefined : this.remembered.get(key);
      if (r === undefined) {
        r = this.decideLink(link, hopsPath, asSeed, parent.url);
        if (generation !== undefined) this.remembered.set(key, r);
      }
      if (r.kind === 'skip') continue;
      if (r.kind === 'reject') {
        this.onReject({ url: r.url, hopsPath, via: parent.url, rule: r.rule, reason: r.reason });
        continue;
      }
      const c: Candidate = {
        url: r.url,
        canonical: r.canonical,
        fingerprint: r.fingerprint,
        queueKey: r.queueKey,
        hopsPath,
        via: parent.url,
        directive: r.directive,
        seed: asSeed,
        viaContext: link.context,
      };
      this.onAccept(c);
      out.push(c);
    }
    return out;
  }

  /** Whether `link` found on `parent` is in scope (nothing queued, counted or remembered): `--capture auto`'s evidence. */
  wouldAccept(parent: { url: string; hopsPath: string }, link: Outlink): boolean {
    return this.decideLink(link, parent.hopsPath + link.hop, false, parent.url).kind === 'accept';
  }

  /** One link through normalize → decide → canonicalize → fingerprint → queue key, parsed once. */
  private decideLink(link: Outlink, hopsPath: string, asSeed: boolean, via: string): Remembered {
    let parsed: URL;
    try {
      parsed = parseFetchableUrl(link.url);
    } catch {
      return { kind: 'skip' }; // extraction already filtered schemes; an unparsable URL is not a candidate
    }
    const url = parsed.href;
    const decision = this.scope.decide({ url, hopsPath, via, seed: asSeed, parsed });
    if (decision.decision === 'REJECT') return { kind: 'reject', url, rule: decision.rule, reason: decision.reason };
    const directive = link.hop === 'R' ? DIRECTIVE_REDIRECT : link.hop === 'P' ? DIRECTIVE_PREREQUISITE : DIRECTIVE_NORMAL;
    const canonical = canonicalizeNormalized(url);
    return { kind: 'accept', url, canonical, fingerprint: fingerprint(canonical), queueKey: this.queueKey(url, parsed), directive };
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

  private candidate(url: string, hopsPath: string, via: string | null, context: string | undefined, directive: number, seed: boolean): Candidate {
    const canonical = canonicalize(url);
    const c: Candidate = {
      url,
      canonical,
      fingerprint: fingerprint(canonical),
      queueKey: this.queueKey(url),
      hopsPath,
      via,
      directive,
      seed,
    };
    if (context !== undefined) c.viaContext = context;
    return c;
  }
}
