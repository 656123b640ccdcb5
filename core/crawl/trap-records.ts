/**
 * The trap detector's per-URL records, packed: a crawl keeps up to `max` of them (one per URL
 * something was queued from, 100,000 by default) for as long as the crawl runs, and as objects
 * (the record, its fingerprint pair, its chain array) they were the crawl thread's heap growth on a
 * large crawl (heap snapshots of the 111,111-page synthetic crawl: ~280 bytes per page after the
 * shapes were shared). Here a record is a slot in typed arrays
 * (hops, fingerprint, its kind's number, the first chain pair), found by its URL in a Map of slot
 * numbers; only URLs with parameters keep their further chain pairs in an array of their own.
 * Slots are reused oldest first, as the Map of objects dropped its oldest entry. The Map is keyed
 * by a 52-bit hash of the URL, not the URL: the URL strings were most of what was left (the
 * 111,111-page crawl's heap still grew 12 MiB from 10k to 100k pages with them). A collision (about one in a million among 100,000 URLs) makes one URL
 * read another's record: a chain length off by one for a link, which the detector's thresholds
 * (dozens of hops) do not notice.
 */
import { hash52 } from '../scope/fingerprint.ts';
import type { Fingerprint } from './trap-fingerprint.ts';
import type { UrlShape } from './trap-shape.ts';

/** What a record keeps of its URL's shape: what the detector's `sameKind` compares. */
export type RecordKind = Pick<UrlShape, 'host' | 'shape' | 'params'>;

/** One URL as the detector reads it back (built on each `get`; the store keeps it packed). */
export interface UrlRecord {
  shape: RecordKind;
  fp: Fingerprint | null;
  hops: number;
  /**
   * Per signature of this URL, in the order of its keys (the shape, then each of `shape.params`):
   * the chain length ending here and the hops where that chain started, as flat pairs (0, 0 where
   * no signature was kept).
   */
  chain: number[];
}

export class TrapRecords {
  readonly #max: number;
  readonly #maxKinds: number;
  readonly #slots = new Map<number, number>();
  /** Each slot's key (its URL's hash), -1 while unused. */
  readonly #keys: Float64Array;
  readonly #hops: Int32Array;
  readonly #fp: Uint32Array;
  readonly #hasFp: Uint8Array;
  readonly #kind: Int32Array;
  readonly #chain: Int32Array;
  /** Chain pairs past the first (URLs with parameters), by slot. */
  readonly #moreChain = new Map<number, number[]>();
  /** Distinct kinds (host, shape and parameters), each kept once, and their numbers by key. */
  readonly #kinds: RecordKind[] = [];
  readonly #kindNumbers = new Map<string, number>();
  /** Kinds past `maxKinds` distinct ones, by slot (kind -1). */
  readonly #otherKinds = new Map<number, RecordKind>();
  #next = 0;

  constructor(max: number, maxKinds: number) {
    this.#max = max;
    this.#maxKinds = maxKinds;
    this.#keys = new Float64Array(max).fill(-1);
    this.#hops = new Int32Array(max);
    this.#fp = new Uint32Array(2 * max);
    this.#hasFp = new Uint8Array(max);
    this.#kind = new Int32Array(max);
    this.#chain = new Int32Array(2 * max);
  }

  get size(): number {
    return this.#slots.size;
  }

  get(url: string): UrlRecord | undefined {
    const slot = this.#slots.get(hash52(url));
    if (slot === undefined) return undefined;
    const k = this.#kind[slot]!;
    const more = this.#moreChain.get(slot);
    const chain = [this.#chain[2 * slot]!, this.#chain[2 * slot + 1]!];
    if (more) chain.push(...more);
    return {
      shape: k >= 0 ? this.#kinds[k]! : this.#otherKinds.get(slot)!,
      fp: this.#hasFp[slot] ? [this.#fp[2 * slot]!, this.#fp[2 * slot + 1]!] : null,
      hops: this.#hops[slot]!,
      chain,
    };
  }

  /** Keep `rec` for `url`; past `max` records the oldest slot is reused. */
  set(url: string, rec: UrlRecord): void {
    const key = hash52(url);
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = this.#next;
      this.#next = (this.#next + 1) % this.#max;
      const old = this.#keys[slot]!;
      if (old >= 0) this.#slots.delete(old);
      this.#keys[slot] = key;
      this.#slots.set(key, slot);
    }
    this.#moreChain.delete(slot);
    this.#otherKinds.delete(slot);
    this.#hops[slot] = rec.hops;
    this.#hasFp[slot] = rec.fp ? 1 : 0;
    this.#fp[2 * slot] = rec.fp ? rec.fp[0] : 0;
    this.#fp[2 * slot + 1] = rec.fp ? rec.fp[1] : 0;
    this.#chain[2 * slot] = rec.chain[0] ?? 0;
    this.#chain[2 * slot + 1] = rec.chain[1] ?? 0;
    if (rec.chain.length > 2) this.#moreChain.set(slot, rec.chain.slice(2));
    const k = this.#kindNumber(rec.shape);
    this.#kind[slot] = k;
    if (k < 0) this.#otherKinds.set(slot, rec.shape);
  }

  #kindNumber(kind: RecordKind): number {
    const key = `${kind.host} ${kind.shape} ${kind.params.join(' ')}`;
    let k = this.#kindNumbers.get(key);
    if (k !== undefined) return k;
    if (this.#kinds.length >= this.#maxKinds) return -1;
    k = this.#kinds.length;
    this.#kinds.push({ host: kind.host, shape: kind.shape, params: kind.params });
    this.#kindNumbers.set(key, k);
    return k;
  }
}
