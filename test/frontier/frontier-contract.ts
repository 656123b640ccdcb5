/**
 * The Frontier contract: behaviour every implementation must show, run against each one by its
 * own test file. Times are small synthetic numbers; nothing here reads the clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Candidate, ClaimedUri, Frontier } from '../../core/frontier/frontier.ts';
import { Directive } from '../../core/frontier/frontier.ts';
import { queueKeyFor } from '../../core/frontier/queue-assignment.ts';

export interface FrontierHarness {
  frontier: Frontier;
  /** Drop the frontier without completing its leases and open the same store again (a new process). */
  reopen(): Frontier;
  close(): void;
}

export type FrontierFactory = (opts?: { defaultMaxInFlight?: number }) => FrontierHarness;

/** FNV-1a 64 of the URL: a stand-in for the scope module's fingerprint. */
export function fingerprintOf(s: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < s.length; i++) {
    h ^= BigInt(s.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

export function cand(url: string, extra: Partial<Candidate> = {}): Candidate {
  return {
    url,
    canonical: url,
    fingerprint: fingerprintOf(url),
    queueKey: queueKeyFor(url, 'host'),
    hopsPath: '',
    via: null,
    ...extra,
  };
}

const ok = (queueReadyAt = 0) => ({ status: 200, queueReadyAt });

export function frontierContract(name: string, factory: FrontierFactory): void {
  describe(`Frontier contract: ${name}`, () => {
    let h: FrontierHarness;
    let f: Frontier;
    const open = (opts?: { defaultMaxInFlight?: number }) => {
      h?.close();
      h = factory(opts);
      f = h.frontier;
    };
    beforeEach(() => open());
    afterEach(() => h.close());

    const claimUrl = (now: number) => f.claim(now)?.url ?? null;

    it('schedules only unseen fingerprints and remembers every one ever scheduled', () => {
      expect(f.schedule([cand('http://a.test/1'), cand('http://a.test/2'), cand('http://a.test/1')])).toBe(2);
      expect(f.schedule([cand('http://a.test/2')])).toBe(0);
      expect(f.isSeen(fingerprintOf('http://a.test/1'))).toBe(true);
      expect(f.isSeen(fingerprintOf('http://a.test/3'))).toBe(false);
      const u = f.claim(0)!;
      f.complete(u, ok());
      expect(f.schedule([cand(u.url)])).toBe(0);
      expect(f.counts(0)).toMatchObject({ seen: 2, pending: 1, done: 1, inFlight: 0, queues: 1 });
    });

    it('with pages held back, hands out only URIs that cannot be pages, across queues and from waiting', () => {
      f.schedule([
        cand('http://a.test/page', { hopsPath: 'L' }),
        cand('http://a.test/moved', { hopsPath: 'LR' }),
        cand('http://a.test/style.css', { hopsPath: 'LE' }),
        cand('http://b.test/seed', { hopsPath: '' }),
        cand('http://b.test/logo.png', { hopsPath: 'E' }),
        cand('http://b.test/robots.txt', { hopsPath: 'P', notBefore: 50 }),
        cand('http://b.test/frame-img', { hopsPath: 'LER' }),
      ]);
      expect(f.nextReadyAt({ pages: false })).toBe(0);
      const got: string[] = [];
      for (let u = f.claim(0, { pages: false }); u; u = f.claim(0, { pages: false })) {
        got.push(u.url);
        f.complete(u, ok());
      }
      expect(got.sort()).toEqual(['http://a.test/style.css', 'http://b.test/frame-img', 'http://b.test/logo.png']);
      // Only pages pending, and a prerequisite waiting until 50.
      expect(f.nextReadyAt({ pages: false })).toBe(50);
      expect(f.claim(60, { pages: false })?.url).toBe('http://b.test/robots.txt');
      expect(f.nextReadyAt({ pages: false })).toBeNull();
      expect(f.nextReadyAt()).toBe(0);
      expect(f.claim(60)?.hopsPath).not.toBe('P');
    });

    it('dedups by fingerprint, not by URL text, for signed and unsigned 64-bit values', () => {
      const big = 0xfedcba9876543210n; // above 2^63
      expect(f.schedule([cand('http://a.test/x', { fingerprint: big })])).toBe(1);
      expect(f.schedule([cand('http://a.test/y', { fingerprint: BigInt.asIntN(64, big) })])).toBe(0);
      expect(f.isSeen(big)).toBe(true);
      expect(f.isSeen(BigInt.asIntN(64, big))).toBe(true);
      expect(f.schedule([cand('http://a.test/z', { fingerprint: 0x7fffffffffffffffn }), cand('http://a.test/w', { fingerprint: 0n })])).toBe(2);
    });

    it('lets queues take turns, oldest-ready first, one URI per queue in flight', () => {
      f.schedule(['http://a.test/1', 'http://a.test/2', 'http://b.test/1', 'http://b.test/2'].map((u) => cand(u)));
      const a1 = f.claim(0)!;
      const b1 = f.claim(0)!;
      expect([a1.url, b1.url]).toEqual(['http://a.test/1', 'http://b.test/1']);
      expect(f.claim(0)).toBeNull();
      expect(f.nextReadyAt()).toBeNull(); // both queues busy until a complete
      f.complete(a1, ok(10));
      f.complete(b1, ok(5));
      expect(f.nextReadyAt()).toBe(5);
      expect(f.claim(4)).toBeNull();
      expect(claimUrl(5)).toBe('http://b.test/2');
      expect(claimUrl(9)).toBeNull();
      expect(claimUrl(10)).toBe('http://a.test/2');
    });

    it('rotates among ready queues rather than draining one', () => {
      f.schedule(['a', 'b', 'c'].flatMap((h) => [1, 2].map((i) => cand(`http://${h}.test/${i}`))));
      const order: string[] = [];
      for (let t = 1; t <= 6; t++) {
        const u = f.claim(t)!;
        order.push(u.queueKey);
        f.complete(u, ok(t)); // no politeness delay: the queue goes to the back of the line
      }
      expect(order).toEqual(['a.test', 'b.test', 'c.test', 'a.test', 'b.test', 'c.test']);
    });

    it('keys http and https of one host to one queue', () => {
      f.schedule([cand('http://a.test/1'), cand('https://a.test/2')]);
      expect(f.counts(0).queues).toBe(1);
      expect(f.claim(0)).not.toBeNull();
      expect(f.claim(0)).toBeNull();
    });

    it('honours a per-queue in-flight limit', () => {
      f.setQueueLimit('a.test', 2);
      f.schedule([1, 2, 3].map((i) => cand(`http://a.test/${i}`)));
      const x = f.claim(0)!;
      const y = f.claim(0)!;
      expect(f.claim(0)).toBeNull();
      expect(f.queue('a.test', 0)).toMatchObject({ inFlight: 2, pending: 1, maxInFlight: 2, state: 'in-process' });
      f.complete(x, ok(0));
      expect(claimUrl(0)).toBe('http://a.test/3');
      f.complete(y, ok(0));
    });

    it('uses defaultMaxInFlight for new queues', () => {
      open({ defaultMaxInFlight: 3 });
      f.schedule([1, 2, 3, 4].map((i) => cand(`http://a.test/${i}`)));
      expect([f.claim(0), f.claim(0), f.claim(0), f.claim(0)].filter(Boolean)).toHaveLength(3);
    });

    it('snoozes a queue until its readyAt and keeps the later of two readyAt values', () => {
      f.schedule([cand('http://a.test/1'), cand('http://a.test/2'), cand('http://a.test/3')]);
      f.setQueueReadyAt('a.test', 100);
      expect(f.claim(99)).toBeNull();
      expect(f.nextReadyAt()).toBe(100);
      expect(f.counts(99)).toMatchObject({ readyQueues: 0, snoozedQueues: 1 });
      expect(f.queue('a.test', 99)!.state).toBe('snoozed');
      const u = f.claim(100)!;
      f.complete(u, ok(50)); // earlier than the existing readyAt: ignored
      expect(f.queue('a.test', 100)!.readyAt).toBe(100);
      f.complete(f.claim(100)!, ok(300));
      expect(f.claim(299)).toBeNull();
      expect(claimUrl(300)).toBe('http://a.test/3');
    });

    it('gives out prerequisites, then redirects, then discovery order within a queue', () => {
      f.schedule([cand('http://a.test/n1'), cand('http://a.test/n2')]);
      f.schedule([cand('http://a.test/r', { directive: Directive.REDIRECT })]);
      f.schedule([cand('http://a.test/robots.txt', { directive: Directive.PREREQUISITE, hopsPath: 'P' })]);
      const order: string[] = [];
      for (let t = 0; t < 4; t++) {
        const u = f.claim(t)!;
        order.push(u.url);
        f.complete(u, ok(t));
      }
      expect(order).toEqual(['http://a.test/robots.txt', 'http://a.test/r', 'http://a.test/n1', 'http://a.test/n2']);
    });

    it('returns everything it was given about a URI when claiming it', () => {
      f.schedule([cand('http://a.test/p', { hopsPath: 'LE', via: 'http://a.test/', viaContext: 'img/@src', seed: false, directive: 0 })]);
      f.schedule([cand('http://s.test/', { seed: true })]);
      expect(f.claim(0)).toMatchObject({ url: 'http://a.test/p', queueKey: 'a.test', hopsPath: 'LE', via: 'http://a.test/', viaContext: 'img/@src', seed: false, attempts: 0, directive: 0 });
      expect(f.claim(0)).toMatchObject({ url: 'http://s.test/', via: null, viaContext: null, seed: true });
    });

    it('retries: requeues at retryAt with attempts + 1 and records no outcome until the last try', () => {
      f.schedule([cand('http://a.test/1')]);
      const first = f.claim(0)!;
      f.complete(first, { status: -2, retryAt: 100, queueReadyAt: 0 });
      expect(f.counts(0)).toMatchObject({ pending: 1, waiting: 1, done: 0, failed: 0, inFlight: 0 });
      expect(f.queue('a.test', 0)).toMatchObject({ pending: 1, waiting: 1, state: 'snoozed' });
      expect(f.claim(99)).toBeNull();
      const next = f.nextReadyAt();
      expect(next).not.toBeNull();
      expect(next!).toBeLessThanOrEqual(100);
      const second = f.claim(100)!;
      expect(second).toMatchObject({ id: first.id, attempts: 1 });
      f.complete(second, { status: -2, retryAt: 200, queueReadyAt: 0 });
      const third = f.claim(200)!;
      expect(third.attempts).toBe(2);
      f.complete(third, { status: -8, queueReadyAt: 0, note: 'too many retries' });
      expect(f.counts(200)).toMatchObject({ pending: 0, waiting: 0, done: 0, failed: 1, inFlight: 0 });
      expect(f.claim(1000)).toBeNull();
      expect(f.nextReadyAt()).toBeNull();
    });

    it('says which URIs wait for a retry: the last outcome, attempts made and when, soonest first; not defers or held-back new URIs', () => {
      f.schedule([cand('http://a.test/slow'), cand('http://b.test/busy'), cand('http://c.test/later', { notBefore: 50 }), cand('http://d.test/deferred')]);
      expect(f.retryWaiting(10, 100)).toEqual({ count: 0, capped: false, uris: [] });
      f.complete(f.claim(0)!, { status: -4, retryAt: 300, queueReadyAt: 0 });
      f.complete(f.claim(0)!, { status: 503, retryAt: 200, queueReadyAt: 0 });
      f.defer(f.claim(0)!, 400);
      expect(f.counts(0)).toMatchObject({ waiting: 4 });
      expect(f.retryWaiting(10, 100)).toEqual({
        count: 2,
        capped: false,
        uris: [
          { url: 'http://b.test/busy', queueKey: 'b.test', status: 503, attempts: 1, notBefore: 200 },
          { url: 'http://a.test/slow', queueKey: 'a.test', status: -4, attempts: 1, notBefore: 300 },
        ],
      });
      expect(f.retryWaiting(1, 100)).toMatchObject({ count: 2, capped: false, uris: [{ url: 'http://b.test/busy' }] });
      // Counting stops where asked: at least 1.
      expect(f.retryWaiting(1, 1)).toMatchObject({ count: 1, capped: true, uris: [{ url: 'http://b.test/busy' }] });
      // The second try fails too: attempts 2, its new time and outcome.
      const again = f.claim(200)!;
      expect(again.url).toBe('http://b.test/busy');
      f.complete(again, { status: -3, retryAt: 1000, queueReadyAt: 200 });
      expect(f.retryWaiting(10, 100).uris.map((u) => [u.url, u.status, u.attempts, u.notBefore])).toEqual([
        ['http://a.test/slow', -4, 1, 300],
        ['http://b.test/busy', -3, 2, 1000],
      ]);
      // Claimed again: no longer waiting; finished: gone.
      f.complete(f.claim(300)!, ok());
      expect(f.retryWaiting(10, 100)).toMatchObject({ count: 1, capped: false, uris: [{ url: 'http://b.test/busy' }] });
    });

    it('counts the queued URIs that cannot be pages (what a reached page limit does not hold back)', () => {
      f.schedule([
        cand('http://a.test/', { hopsPath: '' }),
        cand('http://a.test/page', { hopsPath: 'L' }),
        cand('http://a.test/moved', { hopsPath: 'LR' }),
        cand('http://a.test/map-entry', { hopsPath: 'M' }),
        cand('http://a.test/style.css', { hopsPath: 'LE' }),
        cand('http://a.test/robots.txt', { hopsPath: 'P', notBefore: 50 }),
        cand('http://a.test/img-moved', { hopsPath: 'LER' }),
      ]);
      expect(f.queuedNonPages()).toBe(3);
      f.setQueueLimit('a.test', 10);
      const css = f.claim(0, { pages: false })!;
      expect(f.queuedNonPages()).toBe(2); // in flight is not queued
      f.complete(css, { status: 503, retryAt: 100, queueReadyAt: 0 });
      expect(f.queuedNonPages()).toBe(3); // waiting is queued
      expect(f.counts(0).pending - f.queuedNonPages()).toBe(4);
    });

    it('a URI waiting for a retry does not hold up the rest of its queue', () => {
      f.schedule([cand('http://a.test/1'), cand('http://a.test/2')]);
      f.complete(f.claim(0)!, { status: -2, retryAt: 500, queueReadyAt: 10 });
      expect(claimUrl(10)).toBe('http://a.test/2');
    });

    it('gives each URI exactly one final outcome', () => {
      f.schedule([cand('http://a.test/1')]);
      const u = f.claim(0)!;
      f.complete(u, ok());
      expect(() => f.complete(u, ok())).toThrow(expect.objectContaining({ code: 'FRONTIER_NOT_IN_FLIGHT' }));
      expect(() => f.defer(u, 5)).toThrow(expect.objectContaining({ code: 'FRONTIER_NOT_IN_FLIGHT' }));
      expect(f.counts(0)).toMatchObject({ done: 1, inFlight: 0 });
    });

    it('counts any HTTP status as done and negative codes as failed', () => {
      f.schedule([1, 2, 3, 4].map((i) => cand(`http://a.test/${i}`)));
      for (const status of [200, 404, 500, -2]) f.complete(f.claim(0)!, { status, queueReadyAt: 0 });
      expect(f.counts(0)).toMatchObject({ done: 3, failed: 1, pending: 0 });
      expect(f.queue('a.test', 0)).toMatchObject({ done: 3, failed: 1, state: 'exhausted' });
    });

    it('rejects an outcome of 0 without changing anything', () => {
      f.schedule([cand('http://a.test/1')]);
      const u = f.claim(0)!;
      expect(() => f.complete(u, { status: 0, queueReadyAt: 0 })).toThrow(expect.objectContaining({ code: 'FRONTIER_BAD_OUTCOME' }));
      expect(f.counts(0).inFlight).toBe(1);
      f.complete(u, ok());
    });

    it('schedules outlinks with the outcome', () => {
      f.schedule([cand('http://a.test/')]);
      const u = f.claim(0)!;
      const links = [cand('http://a.test/x', { hopsPath: 'L', via: u.url }), cand('http://b.test/y', { hopsPath: 'E', via: u.url }), cand('http://a.test/')];
      f.complete(u, ok(0), links);
      expect(f.counts(0)).toMatchObject({ seen: 3, pending: 2, done: 1, queues: 2 });
    });

    it('defer puts a URI back without an attempt and without snoozing its queue', () => {
      f.schedule([cand('http://a.test/1'), cand('http://a.test/2')]);
      const u = f.claim(0)!;
      f.defer(u, 30);
      expect(f.counts(0)).toMatchObject({ inFlight: 0, pending: 2, waiting: 1 });
      expect(claimUrl(0)).toBe('http://a.test/2'); // the queue is free at once
      f.setQueueLimit('a.test', 2);
      expect(f.claim(29)).toBeNull();
      const again = f.claim(30)!;
      expect(again).toMatchObject({ id: u.id, attempts: 0 });
    });

    it('releaseSlot frees the queue for its next fetch while the URI stays leased until its outcome', () => {
      f.schedule([cand('http://a.test/1'), cand('http://a.test/2'), cand('http://a.test/3')]);
      const u = f.claim(0)!;
      expect(f.claim(0)).toBeNull(); // one slot
      f.releaseSlot(u, 10);
      expect(u.slotReleased).toBe(true);
      expect(f.counts(0)).toMatchObject({ inFlight: 1, pending: 2 }); // still leased
      expect(f.queue('a.test', 0)).toMatchObject({ inFlight: 0, readyAt: 10 });
      expect(f.claim(9)).toBeNull(); // the politeness delay set at release holds
      const v = f.claim(10)!;
      expect(v.url).toBe('http://a.test/2');
      f.releaseSlot(u, 10); // a second release changes nothing
      expect(f.queue('a.test', 10)).toMatchObject({ inFlight: 1 });
      f.complete(u, ok()); // the slot it gave back is not given back twice
      expect(f.queue('a.test', 10)).toMatchObject({ inFlight: 1, done: 1 });
      expect(f.claim(10)).toBeNull();
      f.releaseSlot(v, 10);
      f.defer(v, 20);
      expect(f.queue('a.test', 10)).toMatchObject({ inFlight: 0, pending: 2, waiting: 1 });
      expect(f.counts(10)).toMatchObject({ inFlight: 0, pending: 2, done: 1 });
      expect(() => f.releaseSlot({ ...v, slotReleased: false }, 0)).toThrow(expect.objectContaining({ code: 'FRONTIER_NOT_IN_FLIGHT' }));
    });

    it('recoverInFlight frees every slot, whether or not its lease gave it back', () => {
      f.setQueueLimit('a.test', 2);
      f.schedule([1, 2, 3].map((i) => cand(`http://a.test/${i}`)));
      const a = f.claim(0)!;
      f.claim(0)!;
      f.releaseSlot(a, 0);
      f.claim(0)!;
      expect(f.queue('a.test', 0)).toMatchObject({ inFlight: 2 });
      f = h.reopen();
      expect(f.recoverInFlight()).toBe(3);
      expect(f.queue('a.test', 0)).toMatchObject({ inFlight: 0, pending: 3 });
      expect([f.claim(0), f.claim(0), f.claim(0)].filter(Boolean)).toHaveLength(2);
    });

    it('holds back a candidate scheduled with notBefore', () => {
      f.schedule([cand('http://a.test/later', { notBefore: 50 })]);
      expect(f.counts(0)).toMatchObject({ pending: 1, waiting: 1 });
      expect(f.claim(49)).toBeNull();
      expect(f.nextReadyAt()).toBe(50);
      expect(claimUrl(50)).toBe('http://a.test/later');
    });

    it('forceSchedule refetches a finished URI but never doubles one that is still queued', () => {
      const robots = cand('http://a.test/robots.txt', { directive: Directive.PREREQUISITE, hopsPath: 'P' });
      expect(f.forceSchedule(robots)).toBe(true); // unseen: scheduled normally
      expect(f.forceSchedule(robots)).toBe(false); // pending
      const u = f.claim(0)!;
      expect(f.forceSchedule(robots)).toBe(false); // in flight
      f.complete(u, ok());
      expect(f.schedule([robots])).toBe(0);
      expect(f.forceSchedule(robots)).toBe(true);
      expect(f.forceSchedule(robots)).toBe(false);
      const again = f.claim(1)!;
      expect(again.url).toBe(robots.url);
      expect(again.id).not.toBe(u.id);
      f.complete(again, ok());
      expect(f.counts(1)).toMatchObject({ seen: 1, done: 2, pending: 0 });
      expect(f.forceSchedule(robots)).toBe(true);
    });

    it('retires a queue whose limit is set to 0', () => {
      f.schedule([cand('http://a.test/1'), cand('http://b.test/1')]);
      f.setQueueLimit('a.test', 0);
      expect(f.queue('a.test', 0)!.state).toBe('retired');
      expect(claimUrl(0)).toBe('http://b.test/1');
      expect(f.claim(0)).toBeNull();
    });

    it('reports queues with their state, in creation order, paged', () => {
      f.schedule([cand('http://a.test/1'), cand('http://b.test/1'), cand('http://b.test/2'), cand('http://c.test/1')]);
      f.setQueueReadyAt('c.test', 100);
      f.claim(0); // a.test
      const qs = f.queues(10, 0, 0);
      expect(qs.map((q) => [q.key, q.state, q.pending, q.inFlight])).toEqual([
        ['a.test', 'in-process', 0, 1],
        ['b.test', 'ready', 2, 0],
        ['c.test', 'snoozed', 1, 0],
      ]);
      expect(f.queues(1, 1, 0).map((q) => q.key)).toEqual(['b.test']);
      expect(f.queue('nope.test')).toBeNull();
      expect(f.counts(0)).toMatchObject({ queues: 3, readyQueues: 1, snoozedQueues: 1, inFlight: 1, pending: 3 });
    });

    it('recoverInFlight after reopening returns abandoned leases to pending, attempts unchanged', () => {
      f.schedule(['http://a.test/1', 'http://a.test/2', 'http://b.test/1', 'http://c.test/1'].map((u) => cand(u)));
      const retried = f.claim(0)!; // a.test/1
      f.complete(retried, { status: -2, retryAt: 1, queueReadyAt: 0 });
      const leases: ClaimedUri[] = [f.claim(1)!, f.claim(1)!];
      expect(leases.map((u) => u.url).sort()).toEqual(['http://a.test/1', 'http://b.test/1']);
      f = h.reopen();
      expect(f.counts(1)).toMatchObject({ inFlight: 2, pending: 2 }); // still as the dead process left it
      expect(f.recoverInFlight()).toBe(2);
      expect(f.recoverInFlight()).toBe(0);
      expect(f.counts(1)).toMatchObject({ inFlight: 0, pending: 4, seen: 4, done: 0 });
      expect(f.queue('a.test', 1)).toMatchObject({ inFlight: 0, pending: 2 });
      const got: ClaimedUri[] = [];
      for (let u = f.claim(1); u; u = f.claim(1)) got.push(u);
      expect(got.map((u) => u.url).sort()).toEqual(['http://a.test/1', 'http://b.test/1', 'http://c.test/1']);
      expect(got.find((u) => u.url === 'http://a.test/1')!.attempts).toBe(1);
      expect(() => f.complete(leases[1]!, ok())).not.toThrow(); // b.test/1 is in flight again, same id
    });

    it('keeps everything across a reopen', () => {
      f.setQueueLimit('a.test', 2);
      f.schedule([cand('http://a.test/1'), cand('http://a.test/2'), cand('http://b.test/1')]);
      f.complete(f.claim(0)!, { status: 301, queueReadyAt: 40 });
      const before = f.counts(0);
      f = h.reopen();
      expect(f.counts(0)).toEqual(before);
      expect(f.queue('a.test', 0)).toMatchObject({ readyAt: 40, maxInFlight: 2, done: 1 });
      expect(f.isSeen(fingerprintOf('http://a.test/1'))).toBe(true);
      expect(f.schedule([cand('http://a.test/1')])).toBe(0);
    });

    it('counts stay equal to what a scan of the URIs would say, through a mixed workload', () => {
      let t = 0;
      let n = 0;
      const hosts = ['a', 'b', 'c', 'd'];
      f.schedule(hosts.map((x) => cand(`http://${x}.test/`)));
      for (let step = 0; step < 200; step++) {
        t += 3;
        const u = f.claim(t);
        if (!u) continue;
        const r = step % 7;
        const links = [0, 1, 2].map(() => {
          const k = n++ % 150;
          return cand(`http://${hosts[k % 4]}.test/p${k}`);
        });
        if (r === 0 && u.attempts < 2) f.complete(u, { status: -2, retryAt: t + 5, queueReadyAt: t });
        else if (r === 1) f.defer(u, t + 2);
        else f.complete(u, { status: r === 2 ? -4 : 200, queueReadyAt: t + 1 }, links);
      }
      const c = f.counts(t);
      expect(c.seen).toBe(4 + 150);
      expect(c.pending + c.inFlight + c.done + c.failed).toBe(c.seen);
      const qs = f.queues(100, 0, t);
      expect(qs.reduce((s, q) => s + q.pending, 0)).toBe(c.pending);
      expect(qs.reduce((s, q) => s + q.waiting, 0)).toBe(c.waiting);
      expect(qs.reduce((s, q) => s + q.done, 0)).toBe(c.done);
      expect(qs.reduce((s, q) => s + q.failed, 0)).toBe(c.failed);
      // Drain: everything left is claimable eventually and ends with one outcome.
      for (;;) {
        t += 1000;
        const u = f.claim(t);
        if (!u) {
          if (f.counts(t).pending === 0) break;
          continue;
        }
        f.complete(u, { status: 200, queueReadyAt: t });
      }
      expect(f.counts(t)).toMatchObject({ pending: 0, waiting: 0, inFlight: 0, done: c.seen - f.counts(t).failed });
    });
  });
}
