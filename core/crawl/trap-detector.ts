/**
 * Crawler-trap detector. It watches every fetched URI once (so it counts distinct URLs, never
 * references) with the page it was found on, its hops and a fingerprint of its text, and judges a
 * URL shape by what traps actually look like, not by how many URLs it has — a large set of
 * distinct ids linked from many different pages is a site:
 *
 * - a chain: each new member found on the previous member, hops rising, the pages near-identical
 *   (an endless calendar, "next" links that lead nowhere new);
 * - growth: each member found on the previous one and longer than it, with a path run or a query
 *   key repeated (`/loop/loop/loop/`, `?a=1&a=1&a=1`, `?page=3&from=1&from=2`);
 * - a session id: the same pages again and again under fresh values of one parameter, found on
 *   pages that carry it themselves (`;jsessionid=`, `?sid=` that canonicalization does not strip).
 *
 * A flagged shape becomes a warning with the evidence in words, a suggested exclude regex built to
 * match the trap and not the site (and checked against the URLs seen so far), and sample URLs.
 * It is a suggestion: the detector never excludes anything by itself. The default decide rules
 * (hops, path repeats and depth, URL length) bound most traps anyway; this says where and why.
 *
 * Memory is bounded: records only for URLs with something that can vary (digits, a query, matrix
 * params, repeats), at most MAX_RECORDS, oldest dropped first (a chain moves forward); at most
 * MAX_SIGNATURES shapes and parameters per crawl.
 */
import type { TrapWarning } from '../api/crawl-snapshot.ts';
import { nearIdentical, textFingerprint, type Fingerprint } from './trap-fingerprint.ts';
import { paramExclude, paramValue, repeatedKeyExclude, shapeExclude, shapeOf, withoutParam } from './trap-shape.ts';
import { TrapRecords, type RecordKind, type UrlRecord } from './trap-records.ts';

const MAX_RECORDS = 100_000;
const MAX_SIGNATURES = 20_000;
const MAX_RESOURCES = 5_000;
/** All signatures' resources together. */
const MAX_RESOURCES_TOTAL = 100_000;
const SEEN_SAMPLE = 2_000;

/** Chain length (members each found on the previous one) before a near-identical chain is a trap. */
export const CHAIN_MIN = 10;
/** Chain length before an ever-longer chain (repeated run or key) is a trap. */
export const GROWTH_MIN = 8;
/** Pages seen again under a fresh parameter value before the parameter is a session trap. */
export const SESSION_MIN = 20;
/**
 * URLs per distinct page before a parameter is a session id: a tracking parameter with a few
 * fixed values (`?ref=nav`, `?ref=footer`) multiplies the pages by a few, a session id without end.
 */
export const SESSION_VALUES_PER_PAGE = 4;

/** One fetched URI, as the crawl saw it. */
export interface PageSeen {
  url: string;
  /** The URI it was found on (null for a seed). */
  via: string | null;
  /** Hops from the seed (length of the hops path). */
  hops: number;
  /** The extracted text ('' when not a document). */
  text: string;
  /**
   * Whether anything was queued from it (a URL first found on it). When not, no later URL can
   * have it as its via, so its record would never be read as a parent: it is not kept (an image,
   * a leaf page; half the records of a crawl). Absent: kept.
   */
  leadsOn?: boolean;
  /** `url` WHATWG-parsed already (the crawl URI's one parse): read here, never changed. */
  parsed?: URL | null;
}

interface Signature {
  kind: 'shape' | 'param';
  host: string;
  /** The shape (`/cal/N/N/`) or the parameter (`?sid`, `;jsessionid`). */
  label: string;
  members: number;
  /** Members found on a page of the same signature. */
  chained: number;
  /** Chained members near-identical to the page they were found on. */
  nearSame: number;
  /** Chained members longer than the page they were found on. */
  growing: number;
  maxRepeats: number;
  maxDuplicateKeys: number;
  duplicatedKey: string | null;
  deepest: { length: number; startHops: number; endHops: number; url: string };
  /** Param kind: resource (URL without the param) → fingerprint of its first fetch. */
  resources: Map<string, Fingerprint | null>;
  /** Param kind: members that were a resource already fetched under another value, near-identical. */
  sameResource: number;
  samples: string[];
  flag: { kind: NonNullable<TrapWarning['kind']>; membersWhenFlagged: number; exclude: string } | null;
  check: { seen: number; result: NonNullable<TrapWarning['excludeCheck']> } | null;
}

export class TrapDetector {
  private records = new TrapRecords(MAX_RECORDS, MAX_SIGNATURES);
  private signatures = new Map<string, Signature>();
  /** URLs seen, for checking a suggested exclude: the first SEEN_SAMPLE and the latest SEEN_SAMPLE. */
  private firstSeen: string[] = [];
  private lastSeen: string[] = [];
  private lastSeenAt = 0;
  private seenCount = 0;
  private resourcesTotal = 0;

  /** Called once for every fetched URI (not for retries). */
  observe(page: PageSeen): void {
    this.remember(page.url);
    const shape = shapeOf(page.url, page.parsed);
    if (!shape || !shape.variable) return;
    const parent = page.via === null ? null : (this.records.get(page.via) ?? derivedRecord(page.via, page.hops - 1));
    // The URL's signatures: its shape (index 0), then each of its parameters. Plain loops: this
    // runs for every fetched URI.
    const n = 1 + shape.params.length;
    const keys = new Array<string>(n);
    const shares = new Array<boolean>(n);
    let worthIt = false;
    for (let i = 0; i < n; i++) {
      const label = i === 0 ? shape.shape : shape.params[i - 1]!;
      keys[i] = `${shape.host} ${label}`;
      shares[i] = parent !== null && page.via !== page.url && sameKind(parent.shape, shape, i === 0 ? 'shape' : 'param', label);
      if (shares[i]) worthIt = true;
    }
    // The text is fingerprinted only where it can count: on a page found on one of its own kind,
    // or of a kind that has such pages already. A flat catalogue's items, found on list pages,
    // never pay for it.
    if (!worthIt) for (const key of keys) if ((this.signatures.get(key)?.chained ?? 0) > 0) worthIt = true;
    const rec: UrlRecord = { shape, fp: worthIt ? textFingerprint(page.text) : null, hops: page.hops, chain: new Array<number>(n * 2).fill(0) };
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      const kind: Signature['kind'] = i === 0 ? 'shape' : 'param';
      const label = i === 0 ? shape.shape : shape.params[i - 1]!;
      const sig = this.signature(key, kind, shape.host, label);
      if (!sig) continue;
      sig.members++;
      const sameAsParent = shares[i]! && parent !== null;
      if (sameAsParent) {
        // The same signature's place among the parent's keys (sameKind: same host, and the
        // same shape or a parameter the parent has too).
        const at = 2 * (kind === 'shape' ? 0 : parent.shape.params.indexOf(label) + 1);
        const len = parent.chain[at] || 1;
        const start = parent.chain[at] ? parent.chain[at + 1]! : parent.hops;
        rec.chain[2 * i] = len + 1;
        rec.chain[2 * i + 1] = start;
        sig.chained++;
        if (nearIdentical(rec.fp, parent.fp)) sig.nearSame++;
        if (page.url.length > page.via!.length) sig.growing++;
        if (len + 1 > sig.deepest.length) sig.deepest = { length: len + 1, startHops: start, endHops: page.hops, url: page.url };
        if (sig.samples.length < 3) sig.samples.push(page.url);
        else sig.samples[3] = page.url; // the latest, after the first three
      } else {
        rec.chain[2 * i] = 1;
        rec.chain[2 * i + 1] = page.hops;
      }
      if (kind === 'shape') {
        sig.maxRepeats = Math.max(sig.maxRepeats, shape.repeats);
        if (shape.duplicateKeys > sig.maxDuplicateKeys) {
          sig.maxDuplicateKeys = shape.duplicateKeys;
          sig.duplicatedKey = duplicatedKey(page.url);
        }
      } else {
        const resource = withoutParam(page.url, label);
        if (sig.resources.has(resource)) {
          const first = sig.resources.get(resource)!;
          if (sameAsParent && paramValue(page.url, label, page.parsed) !== null && nearIdentical(rec.fp, first)) sig.sameResource++;
          // Its first fetch was not fingerprinted (not yet worth it): this one stands in for it.
          if (first === null && rec.fp !== null) sig.resources.set(resource, rec.fp);
        } else if (sig.resources.size < MAX_RESOURCES && this.resourcesTotal < MAX_RESOURCES_TOTAL) {
          sig.resources.set(resource, rec.fp);
          this.resourcesTotal++;
        }
      }
      if (!sig.flag) this.judge(sig);
    }
    if (page.leadsOn === false) return;
    this.records.set(page.url, rec);
  }

  warnings(): TrapWarning[] {
    const out: TrapWarning[] = [];
    for (const sig of this.signatures.values()) if (sig.flag) out.push(this.warning(sig));
    return out.sort((a, b) => b.count - a.count).slice(0, 20);
  }

  private signature(key: string, kind: Signature['kind'], host: string, label: string): Signature | null {
    let sig = this.signatures.get(key);
    if (sig) return sig;
    if (this.signatures.size >= MAX_SIGNATURES) return null;
    sig = {
      kind,
      host,
      label,
      members: 0,
      chained: 0,
      nearSame: 0,
      growing: 0,
      maxRepeats: 1,
      maxDuplicateKeys: 0,
      duplicatedKey: null,
      deepest: { length: 0, startHops: 0, endHops: 0, url: '' },
      resources: new Map(),
      sameResource: 0,
      samples: [],
      flag: null,
      check: null,
    };
    this.signatures.set(key, sig);
    return sig;
  }

  /** Decide whether a signature now looks like a trap; once flagged it stays flagged. */
  private judge(sig: Signature): void {
    if (sig.kind === 'shape') {
      // Mostly a chain (not fan-out from many parents), long enough, and most members a copy of
      // the page they were found on.
      const chainLike = sig.chained >= sig.members / 2;
      if (chainLike && sig.deepest.length >= CHAIN_MIN && sig.nearSame >= 0.6 * sig.chained) {
        sig.flag = { kind: 'near-identical-chain', membersWhenFlagged: sig.members, exclude: shapeExclude(sig.deepest.url) };
        return;
      }
      const grows = sig.maxRepeats >= 3 || sig.maxDuplicateKeys >= 2;
      if (chainLike && grows && sig.deepest.length >= GROWTH_MIN && sig.growing >= 0.8 * sig.chained) {
        const exclude = sig.maxDuplicateKeys >= 2 && sig.duplicatedKey !== null ? repeatedKeyExclude(sig.deepest.url, sig.duplicatedKey) : shapeExclude(sig.deepest.url);
        sig.flag = { kind: 'growing-url', membersWhenFlagged: sig.members, exclude };
      }
      return;
    }
    if (sig.sameResource >= SESSION_MIN && sig.sameResource >= sig.members / 2 && sig.members >= SESSION_VALUES_PER_PAGE * sig.resources.size) {
      sig.flag = { kind: 'session-id', membersWhenFlagged: sig.members, exclude: paramExclude(sig.host, sig.label) };
    }
  }

  private warning(sig: Signature): TrapWarning {
    const flag = sig.flag!;
    const d = sig.deepest;
    const chain = `a chain of ${d.length} URLs each found on the previous one, hops ${d.startHops}→${d.endHops}`;
    let evidence: string;
    if (flag.kind === 'near-identical-chain') {
      evidence = `${chain}; ${sig.nearSame} of ${sig.chained} near-identical to the page they were found on (${sig.members} URLs of this shape)`;
    } else if (flag.kind === 'growing-url') {
      const what = sig.maxDuplicateKeys >= 2 ? `query key "${sig.duplicatedKey}" given up to ${sig.maxDuplicateKeys + 1} times` : `path segments repeated up to ${sig.maxRepeats} times`;
      evidence = `${chain}, ${sig.growing} of ${sig.chained} longer than the page they were found on; ${what}`;
    } else {
      evidence = `${sig.sameResource} of ${sig.members} URLs with "${sig.label.slice(1)}" are pages already fetched under another value of it, with near-identical text, found on pages that carry it themselves (${sig.resources.size} distinct pages)`;
    }
    // Checked again once the crawl has seen a tenth more URLs (the check walks a few thousand).
    if (!sig.check || this.seenCount - sig.check.seen >= Math.max(200, sig.check.seen / 10)) {
      sig.check = { seen: this.seenCount, result: this.checkExclude(sig, flag.exclude) };
    }
    return {
      host: sig.host,
      pattern: sig.label,
      count: sig.members,
      suggestedExclude: flag.exclude,
      kind: flag.kind,
      evidence,
      samples: [...sig.samples],
      membersWhenFlagged: flag.membersWhenFlagged,
      excludeCheck: sig.check.result,
    };
  }

  /** How the exclude fares on the URLs seen: trap members it matches, and anything else it matches. */
  private checkExclude(sig: Signature, exclude: string): NonNullable<TrapWarning['excludeCheck']> {
    const re = new RegExp(exclude);
    const urls = new Set([...this.firstSeen, ...this.lastSeen]);
    let trap = 0;
    const other: string[] = [];
    for (const u of urls) {
      if (!re.test(u)) continue;
      const s = shapeOf(u);
      const member = s !== null && s.host === sig.host && (sig.kind === 'shape' ? s.shape === sig.label : s.params.includes(sig.label));
      if (member) trap++;
      else other.push(u);
    }
    return { checked: urls.size, trap, other: other.length, otherSamples: other.slice(0, 3) };
  }

  private remember(url: string): void {
    this.seenCount++;
    if (this.firstSeen.length < SEEN_SAMPLE) {
      this.firstSeen.push(url);
      return;
    }
    this.lastSeen[this.lastSeenAt] = url;
    this.lastSeenAt = (this.lastSeenAt + 1) % SEEN_SAMPLE;
  }
}

/** Whether `a` is of `b`'s shape (kind 'shape') or carries the same parameter, on the same host. */
function sameKind(a: RecordKind, b: RecordKind, kind: Signature['kind'], label: string): boolean {
  return a.host === b.host && (kind === 'shape' ? a.shape === b.shape : a.params.includes(label));
}

/** A record for a page the detector kept nothing about (a plain path, or dropped): shape only. */
function derivedRecord(url: string, hops: number): UrlRecord | null {
  const shape = shapeOf(url);
  return shape ? { shape, fp: null, hops, chain: [] } : null;
}

/** The query key given most often in `url`. */
function duplicatedKey(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const n = new Map<string, number>();
  for (const k of u.searchParams.keys()) n.set(k, (n.get(k) ?? 0) + 1);
  let best: string | null = null;
  for (const [k, c] of n) if (c > 1 && (best === null || c > n.get(best)!)) best = k;
  return best;
}
